export { openDatabase, type Db } from './sqlite.js';
