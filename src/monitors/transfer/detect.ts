// Which importer reads a file: by its content type, then by its content.
import { nestsDeeperThan } from '../../content/json-nesting.js';
import { invalidRequest, unsupportedMediaType } from '../../errors.js';
import { EXPORT_FORMAT } from './export.js';
import { parseChangedetection, watchesFromZip } from './import-changedetection.js';
import { parsePagewatchExport } from './import-pagewatch.js';
import { parseUrlwatch } from './import-urlwatch.js';
import { isObject, type ParsedImport } from './types.js';

export const IMPORT_MEDIA_TYPES = 'application/json, application/zip, application/yaml or text/yaml';
const YAML_TYPES = new Set(['application/yaml', 'text/yaml', 'application/x-yaml', 'text/x-yaml']);
const MAX_JSON_DEPTH = 64;
const ZIP_TYPES = new Set(['application/zip', 'application/x-zip-compressed']);

/** True when `type` is one an import reads (checked before the body is read). */
export const importMediaType = (type: string) =>
  type === 'application/json' || YAML_TYPES.has(type) || ZIP_TYPES.has(type);

export function parseImport(type: string, bytes: Buffer): ParsedImport {
  if (ZIP_TYPES.has(type)) {
    const watches = watchesFromZip(bytes);
    if (!isObject(watches)) throw invalidRequest('url-watches.json in the zip is not a JSON object');
    return parseChangedetection(watches);
  }
  const text = bytes.toString('utf-8');
  if (YAML_TYPES.has(type)) return parseUrlwatch(text);
  if (type !== 'application/json') throw unsupportedMediaType(type || undefined, IMPORT_MEDIA_TYPES);
  // Checked on the text, before anything walks the value (as every JSON body of the API).
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw invalidRequest(`the JSON nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    throw invalidRequest('The body is not valid JSON; check its quotes, commas and brackets.');
  }
  if (isObject(file) && file.format === EXPORT_FORMAT) return parsePagewatchExport(file);
  if (isObject(file) && isObject(file.watching)) return parseChangedetection(file);
  throw invalidRequest(
    `the file is neither a Pagewatch export (format "${EXPORT_FORMAT}") nor changedetection.io's ` +
      'url-watches.json (a "watching" object); urlwatch\'s urls.yaml goes as application/yaml',
  );
}
