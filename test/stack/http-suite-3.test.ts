// Part 3 of the HTTP suite on the scale stack (http-suite.ts deals the files into parts).
import { httpSuitePartTest } from './http-suite.js';

httpSuitePartTest(3);
