// Reads words one per line on stdin and prints each one's Snowball English stem on its own line:
// test/native/stemmer.test.ts compares the output with a JS implementation of Porter2.
#include <iostream>
#include <string>

#include "analysis/analyzer.h"

int main() {
  tessera::Analyzer analyzer(tessera::FtsField{});
  std::string word;
  while (std::getline(std::cin, word)) std::cout << analyzer.Stem(word) << '\n';
  return 0;
}
