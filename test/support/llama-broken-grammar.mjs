// Feeds llama.cpp's grammar parser a broken grammar and prints whether it was refused; run as
// a child, since llama.cpp writes its complaint straight to file descriptor 2.
import { getLlama } from 'node-llama-cpp';

const llama = await getLlama({ gpu: false, build: 'never', logger: () => {} });
try {
  await llama.createGrammar({ grammar: 'root ::= (' });
  console.log('accepted');
} catch {
  console.log('refused');
}
