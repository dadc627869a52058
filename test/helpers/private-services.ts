export * from '../../bench/lib/private-services.js';
