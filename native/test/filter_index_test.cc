// Checks the filter indexes against the filter itself: on random records and thousands of random
// filters (every token predicate, Fuzzy with budgets 0..3, Regex with literals, classes,
// alternations, (?i) and unfilterable patterns, nested in All/Any/Not), SegmentFilterIndex::Narrow
// must return a sorted superset of the rows Filter::Matches accepts, and for a served filter usually
// far fewer rows than the segment. Then measures build time, memory and Narrow time on 100k rows of
// English-like text (real sentences when $TESSERA_TEXT_FILE names a file of them). Prints "N passed, M failed" and exits non-zero on any
// failure.
#include "index/filter_index.h"

#include <re2/unicode_casefold.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "check.h"
#include "filter/filter.h"
#include "random.h"
#include "storage/segment.h"
#include "util/value.h"

using namespace tessera;

namespace {

using test::Check;
using test::Json;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += char(cp);
  } else if (cp < 0x800) {
    *out += char(0xC0 | (cp >> 6));
    *out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += char(0xE0 | (cp >> 12));
    *out += char(0x80 | ((cp >> 6) & 0x3F));
    *out += char(0x80 | (cp & 0x3F));
  } else {
    *out += char(0xF0 | (cp >> 18));
    *out += char(0x80 | ((cp >> 12) & 0x3F));
    *out += char(0x80 | ((cp >> 6) & 0x3F));
    *out += char(0x80 | (cp & 0x3F));
  }
}

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    uint8_t b = uint8_t(s[i]);
    size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (uint8_t(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

std::string FromCodePoints(const std::vector<uint32_t>& cps) {
  std::string out;
  for (uint32_t cp : cps) AppendUtf8(&out, cp);
  return out;
}

// Words chosen to collide often, with the case-folding traps: mixed case, non-ASCII letters,
// U+017F LONG S and U+212A KELVIN SIGN (RE2's (?i) folds them to s and k), digits, CJK, emoji.
const std::vector<std::string> kWords = {
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "run",
    "running",
    "runs",
    "Run",
    "apple",
    "Apple",
    "APPLE",
    "banana",
    "café",
    "CAFÉ",
    "Café",
    "über",
    "Über",
    "naïve",
    "\xC5\xBFtar",
    "star",
    "STAR",
    "\xE2\x84\xAA"
    "elvin",
    "kelvin",
    "Kelvin",
    "straße",
    "日本語",
    "x1",
    "42",
    "a",
    "ab",
    "abc",
    "hello",
    "Hello",
    "world",
    "wörld",
    "emoji😀",
    "mississippi",
    "missisippi",
    "foo_bar",
    "ééé",
};
const std::vector<std::string> kSeparators = {" ", " ", " ", ", ", "-", ".", "  ", "_", "/", "!"};

class Random : public test::Random {
 public:
  using test::Random::Random;
  std::string Words(int lo, int hi) { return test::Random::Words(kWords, kSeparators, lo, hi); }

  // Flips the ASCII case of some letters.
  std::string Recase(std::string s) {
    for (char& c : s) {
      if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && Chance(0.2)) c ^= 0x20;
    }
    return s;
  }

  // Up to n random insertions, deletions and substitutions of code points.
  std::string Edit(const std::string& s, int n) {
    std::vector<uint32_t> cps = CodePoints(s);
    const uint32_t alphabet[] = {'a', 'e', 'k', 'S', 's', ' ', 'x', 0xE9, 0x17F, 0x212A};
    for (int i = 0; i < n; ++i) {
      int op = Int(0, 2);
      uint32_t c = alphabet[Int(0, 9)];
      if (op == 0 || cps.empty()) {
        cps.insert(cps.begin() + Int(0, int(cps.size())), c);
      } else if (op == 1) {
        cps.erase(cps.begin() + Int(0, int(cps.size()) - 1));
      } else {
        cps[Int(0, int(cps.size()) - 1)] = c;
      }
    }
    return FromCodePoints(cps);
  }
};

// Fields "t" (mostly Str) and "l" (mostly List) are indexed; "o" is not.
std::string RandomRecord(Random& rnd) {
  AttrEncoder e;
  for (const char* key : {"t", "o"}) {
    double p = rnd.Int(0, 99) / 100.0;
    if (p < 0.08) continue;
    if (p < 0.12) {
      e.AddInt(key, rnd.Int(0, 9));
    } else if (p < 0.16) {
      e.AddStr(key, "");
    } else {
      e.AddStr(key, rnd.Words(1, 8));
    }
  }
  double p = rnd.Int(0, 99) / 100.0;
  if (p < 0.1) {
  } else if (p < 0.2) {
    e.AddStr("l", rnd.Words(1, 4));
  } else {
    std::vector<std::string> items;
    for (int i = rnd.Int(0, 4); i > 0; --i) items.push_back(rnd.Words(0, 3));
    e.AddList("l", std::vector<std::string_view>(items.begin(), items.end()));
  }
  e.AddInt("n", rnd.Int(0, 9));
  return e.Finish();
}

std::string RegexPattern(Random& rnd) {
  std::string w = rnd.Pick(kWords), v = rnd.Pick(kWords);
  std::string lit;  // w with regex metacharacters escaped (none of kWords has one but '.')
  for (char c : w) lit += (c == '.') ? std::string("\\.") : std::string(1, c);
  switch (rnd.Int(0, 15)) {
    case 0: return lit;
    case 1: return "(?i)" + rnd.Recase(lit);
    case 2: return ".*" + lit + ".*";
    case 3: return "(?i).*" + rnd.Recase(lit) + ".*";
    case 4: return ".*(" + lit + "|" + v + ").*";
    case 5: return "(?i).*(" + rnd.Recase(lit) + "|" + rnd.Recase(v) + ").*";
    case 6: return ".*[Hh]ello.*";
    case 7: return ".*[a-c]b[c-d].*";
    case 8: return rnd.Pick(std::vector<std::string>{".*", ".+", "(?s).*", "[^x]*", "\\w*"});
    case 9: return ".*\\d+.*";
    case 10: return "(?i).*KELVIN.*";
    case 11: return "(?i).*STAR.*";
    case 12: return ".*" + lit + "[ ,.-]+" + v + ".*";
    case 13: return ".*mis+is+ip+i.*";
    case 14: return "(?i)" + lit + "(\\W+\\w+)*";
    default: {
      std::vector<uint32_t> cps = CodePoints(lit);
      cps.resize(std::min<size_t>(cps.size(), 4));
      return ".*" + FromCodePoints(cps) + "(x|y|z)?.*";
    }
  }
}

std::string RandomLeaf(Random& rnd) {
  const char* key = rnd.Chance(0.45) ? "t" : rnd.Chance(0.8) ? "l" : "o";
  std::string k = Json(key);
  switch (rnd.Int(0, 9)) {
    case 0:
    case 1: return "{\"ContainsAllTokens\":[" + k + "," + Json(rnd.Recase(rnd.Words(0, 3))) + "]}";
    case 2: return "{\"ContainsAnyToken\":[" + k + "," + Json(rnd.Recase(rnd.Words(0, 3))) + "]}";
    case 3: return "{\"ContainsTokenSequence\":[" + k + "," + Json(rnd.Recase(rnd.Words(0, 3))) + "]}";
    case 4:
    case 5: {
      int budget = rnd.Int(0, 3);
      std::string text = rnd.Edit(rnd.Recase(rnd.Words(1, 3)), rnd.Int(0, budget + 1));
      return "{\"Fuzzy\":[" + k + "," + Json(text) + "," + std::to_string(budget) + "]}";
    }
    case 6:
    case 7:
    case 8: return "{\"Regex\":[" + k + "," + Json(RegexPattern(rnd)) + "]}";
    default: return "{\"Lt\":[\"n\",{\"Int\":" + std::to_string(rnd.Int(0, 10)) + "}]}";
  }
}

std::string RandomConjunct(Random& rnd) {
  switch (rnd.Int(0, 11)) {
    case 0: return "{\"All\":[" + RandomLeaf(rnd) + "," + RandomLeaf(rnd) + "]}";
    case 1: return "{\"Any\":[" + RandomLeaf(rnd) + "," + RandomLeaf(rnd) + "]}";
    case 2: return "{\"Not\":" + RandomLeaf(rnd) + "}";
    default: return RandomLeaf(rnd);
  }
}

std::shared_ptr<Segment> MakeSegment(const std::vector<std::string>& blobs) {
  auto segment = Segment::NewMemory(1, 4, uint32_t(blobs.size()));
  std::vector<float> none;
  for (size_t i = 0; i < blobs.size(); ++i) {
    RecordInput rec;
    rec.id = "r" + std::to_string(i);
    rec.attrs = blobs[i];
    segment->Append(rec, none);
  }
  return segment;
}

// Narrow never loses a matching row and returns rows ascending, distinct and in range.
void RandomFilters() {
  Random rnd(20240611);
  std::vector<std::string> blobs;
  for (int i = 0; i < 3000; ++i) blobs.push_back(RandomRecord(rnd));
  auto segment = MakeSegment(blobs);
  const std::vector<std::vector<FilterIndexField>> declarations = {
      {{"t", true, true}, {"l", true, true}},
      {{"t", true, false}, {"l", false, true}},
      {{"t", false, true}},
  };
  const std::string dir = test::TempDir();
  for (const auto& fields : declarations) {
    auto index = SegmentFilterIndex::Build(*segment, fields);
    // Saved and opened in place, the index narrows exactly as the one it was saved from.
    const std::string path = dir + "/seg.filter";
    index->Save(path, *segment, fields);
    auto opened = SegmentFilterIndex::Open(path, *segment, fields);
    Check(opened && opened->mapped() && !index->mapped() && opened->bytes() == index->bytes(), "a saved filter index opens, mapped");
    int served = 0, filters = 0;
    double candidates = 0, matches = 0;
    for (int q = 0; q < 3000; ++q) {
      std::string json = "[";
      for (int n = rnd.Int(1, 3), i = 0; i < n; ++i) json += (i ? "," : "") + RandomConjunct(rnd);
      json += "]";
      Filter filter = Filter::CompileText(json, "filter");
      std::optional<std::vector<uint32_t>> rows = index->Narrow(filter);
      if (opened) Check(opened->Narrow(filter) == rows, json + ": the saved index narrows differently");
      ++filters;
      if (!rows) continue;
      ++served;
      bool ordered = std::adjacent_find(rows->begin(), rows->end(), std::greater_equal<uint32_t>()) == rows->end();
      Check(ordered && (rows->empty() || rows->back() < blobs.size()), json + ": rows not ascending and in range");
      size_t lost = 0, matched = 0;
      for (uint32_t r = 0; r < blobs.size(); ++r) {
        if (!filter.Matches(blobs[r])) continue;
        ++matched;
        if (!std::binary_search(rows->begin(), rows->end(), r)) ++lost;
      }
      Check(lost == 0, json + ": Narrow lost " + std::to_string(lost) + " of " + std::to_string(matched) + " matches");
      candidates += double(rows->size());
      matches += double(matched);
    }
    std::printf("declaration %zu: %d of %d filters served; on those, %.1f candidate rows and %.1f matches on average of %zu rows\n",
                &fields - declarations.data(), served, filters, candidates / std::max(served, 1), matches / std::max(served, 1),
                blobs.size());
    Check(served > filters / 5, "a fair share of the random filters is served");
    Check(candidates / std::max(served, 1) < blobs.size() / 4.0, "served filters narrow to well under the segment");
  }
  std::filesystem::remove_all(dir);
}

// Exact narrowing on the cases the index serves, and what it leaves alone.
void ServedCases() {
  AttrEncoder a, b, c, d;
  a.AddStr("t", "The quick brown fox");
  b.AddList("t", {"quick", "brown dog"});
  c.AddStr("t",
           "a \xE2\x84\xAA"
           "elvin \xC5\xBFtar");  // KELVIN SIGN, LONG S
  d.AddInt("t", 7);
  auto segment = MakeSegment({a.Finish(), b.Finish(), c.Finish(), d.Finish()});
  auto index = SegmentFilterIndex::Build(*segment, {{"t", true, true}});
  auto narrow = [&](const std::string& json) { return index->Narrow(Filter::CompileText(json, "filter")); };
  using V = std::vector<uint32_t>;
  Check(narrow(R"([{"ContainsAllTokens":["t","QUICK brown"]}])") == V{0, 1}, "all tokens: over a List's elements together");
  Check(narrow(R"([{"ContainsAllTokens":["t","quick zebra"]}])") == V{}, "all tokens: an absent token empties the set");
  Check(!narrow(R"([{"ContainsAllTokens":["t","..."]}])"), "all tokens: no tokens is not served");
  Check(narrow(R"([{"ContainsAnyToken":["t","..."]}])") == V{}, "any token: no tokens matches nothing");
  Check(narrow(R"([{"ContainsAnyToken":["t","fox dog"]}])") == V{0, 1}, "any token: union");
  Check(narrow(R"([{"ContainsTokenSequence":["t","brown fox"]}])") == V{0}, "sequence: as all tokens");
  Check(narrow(R"([{"All":[{"ContainsAnyToken":["t","fox"]},{"Eq":["n",{"Int":1}]}]}])") == V{0}, "a top-level All is flattened");
  Check(!narrow(R"([{"Any":[{"ContainsAnyToken":["t","fox"]}]}])"), "Any is not served");
  Check(!narrow(R"([{"Not":{"ContainsAnyToken":["t","fox"]}}])"), "Not is not served");
  Check(!narrow(R"([{"ContainsAnyToken":["u","fox"]}])"), "an undeclared field is not served");
  Check(!narrow(R"([{"Eq":["t",{"Str":"fox"}]}])"), "Eq is not served");

  Check(narrow(R"([{"Fuzzy":["t","BROWN DOG",0]}])") == V{1}, "fuzzy: by trigrams, in a List element");
  Check(narrow(R"([{"Fuzzy":["t","brwn dg",2]}])") == V{1}, "fuzzy: within the budget");
  Check(narrow(R"([{"Fuzzy":["t","qick",1]}])") == V{1}, "fuzzy: too short for trigrams, narrowed by length");
  Check(narrow(R"([{"Fuzzy":["t","xy",1]}])") == V{}, "fuzzy: no text of a length within the budget");
  Check(narrow(R"([{"Regex":["t","(?i).*QUICK.*"]}])") == V{0, 1}, "regex: (?i) atoms over folded trigrams");
  Check(narrow(R"j([{"Regex":["t",".*(fox|dog)"]}])j") == V{0, 1}, "regex: alternation");
  Check(narrow(R"([{"Regex":["t","(?i).*kelvin.*"]}])") == V{2}, "regex: (?i)k finds U+212A KELVIN SIGN");
  Check(narrow(R"([{"Regex":["t","(?i).*STAR"]}])") == V{2}, "regex: (?i)s finds U+017F LONG S");
  Check(!narrow(R"([{"Regex":["t","(?i).*ÉTÉ.*"]}])"), "regex: non-ASCII atoms are not required");
  Check(!narrow(R"([{"Regex":["t","[^x]*"]}])"), "regex: an unfilterable pattern is not served");
  Check(narrow(R"([{"Regex":["t","[^\\x00-\\x{10FFFF}]"]}])") == V{}, "regex: a pattern matching nothing");
  Check(narrow(R"([{"Regex":["t",".*quick.*"]},{"Fuzzy":["t","the quick brown fox",0]},{"ContainsAnyToken":["t","fox"]}])") == V{0},
        "conjuncts intersect");
}

// TrigramFold's premise: the only non-ASCII code points RE2 lowercases to ASCII (so that an ASCII
// atom stands for them) are U+017F LONG S and U+212A KELVIN SIGN.
void RegexLowercasesToAscii() {
  std::vector<uint32_t> found;
  for (re2::Rune r = 0x80; r <= 0x10FFFF; ++r) {
    const re2::CaseFold* f = re2::LookupCaseFold(re2::unicode_tolower, re2::num_unicode_tolower, r);
    if (f != nullptr && r >= f->lo && re2::ApplyFold(f, r) < 0x80) found.push_back(uint32_t(r));
  }
  Check(found == std::vector<uint32_t>{0x17F, 0x212A}, "RE2 lowercases only U+017F and U+212A from non-ASCII to ASCII");
}

// 100k texts: the lines of $TESSERA_TEXT_FILE when set (e.g. the sentences of npm nlp-corpus),
// else 12 words each drawn from a Zipf law over 20k synthetic words of English-like syllables.
std::vector<std::string> MeasureTexts() {
  std::vector<std::string> texts;
  if (const char* path = std::getenv("TESSERA_TEXT_FILE")) {
    std::ifstream in(path);
    for (std::string line; texts.size() < 100000 && std::getline(in, line);) texts.push_back(line);
    return texts;
  }
  Random rnd(7);
  const char* syllables[] = {"the", "er",  "on",   "an",  "re",   "he", "in",  "ed", "nd",  "ha", "at", "en",   "es",  "of", "or",
                             "nt",  "ea",  "ti",   "to",  "it",   "st", "io",  "le", "is",  "ou", "ar", "as",   "de",  "rt", "ve",
                             "pro", "con", "ment", "ing", "tion", "al", "com", "ly", "ver", "un", "ab", "ight", "ful", "bl", "cr",
                             "qu",  "ow",  "ick",  "mp",  "sh",   "wh", "ex",  "gr", "oo",  "ph", "y",  "ss",   "ck"};
  std::vector<std::string> words;
  std::vector<double> cumulative;
  for (int i = 0; i < 20000; ++i) {
    std::string w;
    for (int n = rnd.Int(1, 4); n > 0; --n) w += syllables[rnd.Int(0, int(std::size(syllables)) - 1)];
    words.push_back(w);
    cumulative.push_back((cumulative.empty() ? 0 : cumulative.back()) + 1.0 / (i + 1));
  }
  while (texts.size() < 100000) {
    std::string text;
    for (int w = 0; w < 12; ++w) {
      double x = rnd.Int(0, 1 << 30) / double(1 << 30) * cumulative.back();
      text += (w ? " " : "") + words[std::lower_bound(cumulative.begin(), cumulative.end(), x) - cumulative.begin()];
    }
    if (rnd.Chance(0.5)) text[0] = char(text[0] - 32);
    texts.push_back(text);
  }
  return texts;
}

// The longest and the shortest tokens of a text.
std::pair<std::string, std::string> LongestTwo(const std::string& text) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : text + " ") {
    if (std::isalnum(uint8_t(c))) {
      cur += c;
    } else if (!cur.empty()) {
      tokens.push_back(cur);
      cur.clear();
    }
  }
  std::sort(tokens.begin(), tokens.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return {tokens[0], tokens[1]};
}

void Measure() {
  std::vector<std::string> texts = MeasureTexts();
  std::vector<std::string> blobs;
  size_t text_bytes = 0;
  for (const std::string& t : texts) {
    AttrEncoder e;
    e.AddStr("text", t);
    blobs.push_back(e.Finish());
    text_bytes += t.size();
  }
  auto segment = MakeSegment(blobs);
  std::printf("%zu rows of %s, %.1f bytes of text per row\n", texts.size(),
              std::getenv("TESSERA_TEXT_FILE") ? "real sentences" : "synthetic text", double(text_bytes) / texts.size());
  for (const auto& [label, field] : std::vector<std::pair<const char*, FilterIndexField>>{
           {"tokens", {"text", true, false}}, {"trigrams", {"text", false, true}}, {"both", {"text", true, true}}}) {
    auto start = std::chrono::steady_clock::now();
    auto index = SegmentFilterIndex::Build(*segment, {field});
    std::printf("  build %-8s %7.1f ms, %6.1f bytes per row\n", label, Seconds(start) * 1e3, double(index->bytes()) / texts.size());
  }
  auto index = SegmentFilterIndex::Build(*segment, {{"text", true, true}});
  Random rnd(3);
  const std::string& sample = texts[4242];
  auto [longest, second] = LongestTwo(sample);
  std::vector<uint32_t> head = CodePoints(sample);
  head.resize(std::min<size_t>(head.size(), 24));
  const std::vector<std::string> queries = {
      "[{\"ContainsAllTokens\":[\"text\"," + Json(longest + " " + second) + "]}]",
      "[{\"ContainsAllTokens\":[\"text\",\"the of\"]}]",
      "[{\"Fuzzy\":[\"text\"," + Json(rnd.Edit(sample, 2)) + ",2]}]",
      "[{\"Fuzzy\":[\"text\"," + Json(rnd.Edit(longest, 1)) + ",1]}]",
      "[{\"Regex\":[\"text\"," + Json("(?i).*" + longest + ".*") + "]}]",
      "[{\"Regex\":[\"text\"," + Json(FromCodePoints(head) + ".*") + "]}]",
  };
  for (const std::string& q : queries) {
    Filter filter = Filter::CompileText(q, "filter");
    auto start = std::chrono::steady_clock::now();
    int runs = 0;
    std::optional<std::vector<uint32_t>> rows;
    while (Seconds(start) < 0.3) rows = index->Narrow(filter), ++runs;
    double narrow_us = Seconds(start) / runs * 1e6;
    start = std::chrono::steady_clock::now();
    size_t matched = 0;
    for (const std::string& b : blobs) matched += filter.Matches(b);
    double scan_us = Seconds(start) * 1e6;
    size_t verified = 0;
    start = std::chrono::steady_clock::now();
    if (rows) {
      for (uint32_t r : *rows) verified += filter.Matches(blobs[r]);
    }
    double verify_us = Seconds(start) * 1e6;
    Check(!rows || verified == matched, q + ": narrowed scan finds every match");
    std::printf("  %s\n    narrow %.1f us -> %s candidates, verify %.1f us; full scan %.1f us; %zu matches\n", q.c_str(), narrow_us,
                rows ? std::to_string(rows->size()).c_str() : "(not served)", verify_us, scan_us, matched);
  }
}

}  // namespace

int main() {
  ServedCases();
  RegexLowercasesToAscii();
  RandomFilters();
  Measure();
  return test::Report();
}
