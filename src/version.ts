// The service's version, from package.json (read once; the same file whether run from src/ or dist/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';

export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }
).version;
