// A webhook delivery's status.
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
