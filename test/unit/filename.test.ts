import { describe, expect, it } from 'vitest';
import { safeFilename } from '../../src/http/filename.js';

describe('safeFilename', () => {
  it('keeps a plain name that already has the right extension', () => {
    expect(safeFilename('invoice-2024.pdf', 'render.pdf')).toBe('invoice-2024.pdf');
    expect(safeFilename('shot.png', 'screenshot.png')).toBe('shot.png');
    expect(safeFilename('My Report (final).pdf', 'render.pdf')).toBe('My Report (final).pdf');
  });

  it('treats the extension case-insensitively', () => {
    expect(safeFilename('REPORT.PDF', 'render.pdf')).toBe('REPORT.PDF');
  });

  it('adds the extension when missing or different', () => {
    expect(safeFilename('invoice', 'render.pdf')).toBe('invoice.pdf');
    expect(safeFilename('shot.png', 'screenshot.webp')).toBe('shot.png.webp');
    expect(safeFilename('archive.pdf.exe', 'render.pdf')).toBe('archive.pdf.exe.pdf');
    expect(safeFilename('v1.2', 'screenshot.jpg')).toBe('v1.2.jpg');
  });

  it('keeps ".jpeg" for a JPEG (the render route passes the fallback "screenshot.jpg")', () => {
    // A client asking for format "jpeg" and filename "photo.jpeg" should get photo.jpeg, not photo.jpeg.jpg.
    expect(safeFilename('photo.jpeg', 'screenshot.jpg')).toBe('photo.jpeg');
    expect(safeFilename('photo.JPG', 'screenshot.jpg')).toBe('photo.JPG');
  });

  it('falls back when nothing is requested or nothing usable is left', () => {
    expect(safeFilename(undefined, 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('   ', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('"""', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('\r\n\t', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('.', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('..', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('dir/', 'render.pdf')).toBe('render.pdf');
    expect(safeFilename('dir\\', 'render.pdf')).toBe('render.pdf');
  });

  it('drops every directory part, with / or \\ separators', () => {
    expect(safeFilename('../../etc/passwd', 'render.pdf')).toBe('passwd.pdf');
    expect(safeFilename('/abs/path/report.pdf', 'render.pdf')).toBe('report.pdf');
    expect(safeFilename('..\\..\\windows\\system32\\evil.pdf', 'render.pdf')).toBe('evil.pdf');
    expect(safeFilename('a/b\\c/d.png', 'screenshot.png')).toBe('d.png');
    expect(safeFilename('dir/..', 'render.pdf')).toBe('render.pdf');
  });

  it('removes double quotes (they would end the quoted header value)', () => {
    expect(safeFilename('a"b".pdf', 'render.pdf')).toBe('ab.pdf');
    expect(safeFilename("x.pdf\"; filename*=UTF-8''evil.exe", 'render.pdf')).not.toContain('"');
  });

  it('removes control characters, so no header injection (CR/LF) or NUL gets through', () => {
    const out = safeFilename('a\r\nSet-Cookie: x=1\u0000\u0007\u001f\u007f.pdf', 'render.pdf');
    expect(out).toBe('aSet-Cookie: x=1.pdf');
    // eslint-disable-next-line no-control-regex -- control characters are exactly what must be absent
    expect(out).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('trims surrounding whitespace', () => {
    expect(safeFilename('  report.pdf  ', 'render.pdf')).toBe('report.pdf');
    expect(safeFilename('dir/ report ', 'render.pdf')).toBe('report.pdf');
  });

  it('keeps non-ASCII letters (the header encodes them separately)', () => {
    expect(safeFilename('Übersicht-été.pdf', 'render.pdf')).toBe('Übersicht-été.pdf');
    expect(safeFilename('报告', 'render.pdf')).toBe('报告.pdf');
  });

  it('never returns a name with a separator, quote or control character', () => {
    const nasty = ['a/b', 'a\\b', '"', '\u0000', '../"x"\r\n', 'ok', '\\\\server\\share\\f', 'a\u0085b'];
    for (const n of nasty) {
      const out = safeFilename(n, 'render.pdf');
      // eslint-disable-next-line no-control-regex -- control characters are exactly what must be absent
      expect(out, JSON.stringify(n)).not.toMatch(/[\\/"\u0000-\u001f\u007f]/);
      expect(out.endsWith('.pdf'), JSON.stringify(n)).toBe(true);
      expect(out.length).toBeGreaterThan(4);
    }
  });
});
