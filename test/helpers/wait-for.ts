export { waitFor } from '../../bench/lib/wait-for.js';
