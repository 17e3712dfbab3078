// What a node runs (setting `role`): all = everything; api = the HTTP API; worker = jobs, schedules and
// webhooks. Which parts each role starts is decided where the service is composed.
export const NODE_ROLES = ['all', 'api', 'worker'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];
