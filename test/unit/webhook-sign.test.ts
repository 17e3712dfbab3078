// Our signatures, checked by the reference implementation (the `standardwebhooks` package), which
// must also reject a tampered body, a wrong secret and an old timestamp.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/domain/key-material.js';
import { newMessageId, signedHeaders } from '../../src/webhooks/sign.js';

const body = JSON.stringify({ type: 'job.succeeded', timestamp: '2026-11-22T12:00:00Z', data: { id: 'job_1' } });

describe('Standard Webhooks signing', () => {
  const secret = newWebhookSecret();

  it('verifies with the reference implementation', () => {
    const headers = signedHeaders([secret], newMessageId(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('a tampered body, a wrong secret or an old timestamp is rejected by it', () => {
    const headers = signedHeaders([secret], newMessageId(), body);
    expect(() => new Webhook(secret).verify(body.replace('job_1', 'job_2'), { ...headers })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
    const old = signedHeaders([secret], newMessageId(), body, new Date(Date.now() - 10 * 60_000));
    expect(() => new Webhook(secret).verify(body, { ...old })).toThrow();
  });

  it('signs with every secret during a rotation; a receiver holding either one verifies', () => {
    const next = newWebhookSecret();
    const headers = signedHeaders([secret, next], newMessageId(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(body, { ...headers })).toBeTruthy();
    expect(new Webhook(next).verify(body, { ...headers })).toBeTruthy();
  });

  it('keeps the message id it is given (stable across retries) and stamps the attempt time', () => {
    const id = newMessageId();
    const at = new Date('2026-11-22T12:00:00Z');
    const headers = signedHeaders([secret], id, body, at);
    expect(headers['webhook-id']).toBe(id);
    expect(headers['webhook-timestamp']).toBe(String(at.getTime() / 1000));
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});
