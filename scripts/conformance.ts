// `npm run conformance`: writes docs/conformance.md, the conformance table of the ported peer
// suites (fixtures/peers/), by reading every case again. Run it after changing a peer file or
// a reading; test/conformance.test.ts fails until the file is what this writes.
import { CONFORMANCE_DOC, writeConformance } from '../test/support/conformance.js';

writeConformance();
console.log(`wrote ${CONFORMANCE_DOC}`);
