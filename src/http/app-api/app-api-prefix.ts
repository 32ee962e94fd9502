/** Where the management API lives: the dashboard's own path, /app, holds its pages and its API. */
export const APP_API_PREFIX = '/app/api';
