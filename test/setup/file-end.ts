import { afterAll } from 'vitest';
import { stopAtFileEnd } from '../helpers/file-end.js';

afterAll(stopAtFileEnd);
