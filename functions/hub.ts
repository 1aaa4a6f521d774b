// The hub's route module is its Lambda entry (lib/transport/routes/hub.ts); this file keeps the old entry's name.
export { handler } from '../lib/transport/routes/hub.js';
