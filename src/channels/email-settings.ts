// The service's SMTP settings as email channels read them (config `email.*`; the password is secret).
import type { Config } from '../config.js';

export type EmailSettings = Config['email'];
