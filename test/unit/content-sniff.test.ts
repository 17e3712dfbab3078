// What kind of content a response is (src/content/sniff.ts): decided by its declared type AND its first
// bytes, never by the type alone, in the documented order (pdf, json, html, text, binary).
import { describe, expect, it } from 'vitest';
import { looksLikeText, parseContentType, sniffKind, SNIFF_BYTES } from '../../src/content/sniff.js';

const kind = (contentType: string | undefined, body: string | Buffer) =>
  sniffKind(parseContentType(contentType), Buffer.isBuffer(body) ? body : Buffer.from(body));

describe('parseContentType', () => {
  it('splits the media type from a quoted or bare charset, lower case', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({
      mediaType: 'text/html',
      charset: 'iso-8859-1',
    });
    expect(parseContentType('application/json;charset=utf-8')).toEqual({
      mediaType: 'application/json',
      charset: 'utf-8',
    });
    expect(parseContentType(undefined)).toEqual({ mediaType: null, charset: null });
    expect(parseContentType('')).toEqual({ mediaType: null, charset: null });
  });
});

describe('sniffKind', () => {
  it('%PDF- is a PDF whatever the type says', () => {
    expect(kind('application/pdf', '%PDF-1.7\n')).toBe('pdf');
    expect(kind('application/octet-stream', '%PDF-1.4\n%\xe2\xe3')).toBe('pdf');
    expect(kind('text/html', '%PDF-1.4')).toBe('pdf');
    expect(kind(undefined, '\n %PDF-1.4')).toBe('pdf');
  });

  it('application/pdf that is not a PDF is judged by its bytes (an HTML error page)', () => {
    expect(kind('application/pdf', '<!DOCTYPE html><html><body>Not found')).toBe('html');
    expect(kind('application/pdf', Buffer.from([0, 1, 2, 3, 255]))).toBe('binary');
  });

  it('JSON: a JSON type, +json, or an object/array body not declared as another text', () => {
    expect(kind('application/json', '{"a":1}')).toBe('json');
    expect(kind('application/ld+json', '[1]')).toBe('json');
    expect(kind('application/problem+json', '"x"')).toBe('json');
    expect(kind(undefined, '  {"a":1}')).toBe('json');
    expect(kind('application/octet-stream', '[1,2]')).toBe('json');
    expect(kind('text/plain', '{"a":1}')).toBe('json');
    // A JSON type answered with HTML (a proxy's error page) is HTML.
    expect(kind('application/json', '<html><body>502</body></html>')).toBe('html');
  });

  it('HTML: an HTML type, or HTML opening tags in a body not declared as text', () => {
    expect(kind('text/html', 'hello')).toBe('html');
    expect(kind('application/xhtml+xml', '<?xml version="1.0"?>')).toBe('html');
    expect(kind(undefined, '<!doctype html><p>hi')).toBe('html');
    expect(kind('application/octet-stream', '\n<HTML>\n')).toBe('html');
    expect(kind(undefined, '<p>hi</p>')).toBe('html');
    expect(kind(undefined, '<!-- x -->')).toBe('html');
    // A tag name must end: <pre> and <abbr> are not <p> and <a>.
    expect(kind(undefined, '<pre>x</pre>')).toBe('text');
    // text/plain is shown as text by browsers too.
    expect(kind('text/plain', '<html><body>x')).toBe('text');
  });

  it('text: text/* or UTF-8 without NUL, whatever the type (octet-stream included)', () => {
    expect(kind('application/octet-stream', 'line one\nline two\n')).toBe('text');
    expect(kind(undefined, 'plain words')).toBe('text');
    expect(kind('text/csv', 'a,b\n1,2')).toBe('text');
    expect(kind('application/octet-stream', 'caf\xc3\xa9')).toBe('text');
    expect(kind('application/octet-stream', Buffer.from('Grüße, 世界 🎉'))).toBe('text');
    expect(kind('application/xml', '<?xml version="1.0"?><a/>')).toBe('text');
  });

  it('a declared charset decides whether bytes are text', () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x21]); // "café!" in ISO-8859-1: not UTF-8
    expect(kind('application/octet-stream', latin1)).toBe('binary');
    expect(kind('application/octet-stream; charset=iso-8859-1', latin1)).toBe('text');
  });

  it('a NUL in the first bytes, or bytes that are not UTF-8, are binary', () => {
    expect(kind('application/octet-stream', Buffer.from('abc\0def'))).toBe('binary');
    expect(kind('application/zip', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]))).toBe('binary');
    expect(kind(undefined, Buffer.from([0xc3, 0x28, 0x41]))).toBe('binary');
  });

  it('a UTF-8 character cut at the end of the sniffed bytes is still text', () => {
    const head = Buffer.concat([Buffer.from('a'.repeat(SNIFF_BYTES - 1)), Buffer.from('é').subarray(0, 1)]);
    expect(head.length).toBe(SNIFF_BYTES);
    expect(looksLikeText(head, null)).toBe(true);
    expect(kind('application/octet-stream', head)).toBe('text');
  });

  it('UTF-16 with a byte order mark is text (it has NULs)', () => {
    expect(kind(undefined, Buffer.from('\ufeffhello', 'utf16le'))).toBe('text');
  });

  it('an empty body is text', () => {
    expect(kind(undefined, '')).toBe('text');
    expect(kind('application/octet-stream', '')).toBe('text');
  });
});
