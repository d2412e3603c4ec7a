// Checks every filter variant and every rule of the spec's "Filter and predicates" section against
// attribute blobs built with AttrEncoder, the error cases, and Fuzzy/Glob against brute-force
// references on random inputs. Prints "N passed, M failed" and exits non-zero on any failure.
#include "filter/filter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "analysis/fuzzy.h"
#include "analysis/glob.h"
#include "analysis/text_match.h"
#include "check.h"
#include "sample_record.h"
#include "tessera/error.h"
#include "util/value.h"

using namespace tessera;

namespace {

using test::Check;

const std::string kSample = test::SampleRecord();

bool Eval(const std::string& filter, const std::string& blob) { return Filter::CompileText(filter, "filter").Matches(blob); }

void Expect(const std::string& filter, bool want, const std::string& blob = kSample) {
  try {
    bool got = Eval(filter, blob);
    Check(got == want, filter + (want ? " should match" : " should not match"));
  } catch (const Error& e) {
    Check(false, filter + " threw: " + e.what());
  }
}

// The filter must be refused with 400 and a message containing every one of parts.
void ExpectError(const std::string& filter, const std::vector<std::string>& parts, const std::string& field = "filter") {
  try {
    Filter::CompileText(filter, field);
    Check(false, filter + " should be refused");
  } catch (const Error& e) {
    std::string m = e.what();
    bool ok = e.status() == Status::kBadRequest;
    for (const std::string& p : parts) ok &= m.find(p) != std::string::npos;
    Check(ok, filter + " -> '" + m + "'");
  }
}

void EmptyFilter() {
  Filter none;
  Check(none.empty() && none.Matches(kSample) && none.Matches(""), "default Filter matches everything");
  Filter f = Filter::CompileText("[]", "filter");
  Check(f.empty() && f.Matches(kSample) && f.Matches(""), "[] matches everything");
  Expect(R"([{"Eq":["s",{"Str":"red"}]},{"Eq":["n",{"Int":5}]}])", true);
  Expect(R"([{"Eq":["s",{"Str":"red"}]},{"Eq":["n",{"Int":6}]}])", false);  // AND-combined
  Filter copy = Filter::CompileText(R"([{"Eq":["n",{"Int":5}]}])", "filter");
  Filter other = copy;
  Check(!other.empty() && other.Matches(kSample), "copies share the compiled filter");
}

void Equality() {
  Expect(R"([{"Eq":["s",{"Str":"red"}]}])", true);
  Expect(R"([{"Eq":["s",{"Str":"Red"}]}])", false);
  Expect(R"([{"Eq":["n",{"Int":5}]}])", true);
  Expect(R"([{"Eq":["b",{"Bool":true}]}])", true);
  Expect(R"([{"Eq":["b",{"Bool":false}]}])", false);
  Expect(R"([{"Eq":["f",{"Float":1.5}]}])", true);
  Expect(R"([{"Eq":["d",{"DateTime":1700000000000}]}])", true);
  Expect(R"([{"Eq":["d",{"Int":1700000000000}]}])", false);  // DateTime is its own type
  Expect(R"([{"Eq":["z","Null"]}])", true);                  // Eq of Null matches a stored Null
  Expect(R"([{"Eq":["s","Null"]}])", false);
  Expect(R"([{"Eq":["tags",{"List":["a","b c","Run"]}]}])", true);
  Expect(R"([{"Eq":["tags",{"List":["b c","a","Run"]}]}])", false);
  Expect(R"([{"Eq":["tags",{"List":["a","b c"]}]}])", false);
  Expect(R"([{"Eq":["empty",{"List":[]}]}])", true);
  Expect(R"([{"Ne":["s",{"Str":"blue"}]}])", true);
  Expect(R"([{"Ne":["s",{"Str":"red"}]}])", false);
  Expect(R"([{"Ne":["s",{"Int":1}]}])", true);  // present and of another type
  Expect(R"([{"Ne":["z","Null"]}])", false);
  // Int64 stays exact at both ends of the range.
  Expect(R"([{"Eq":["big",{"Int":9223372036854775807}]}])", true);
  Expect(R"([{"Eq":["big",{"Int":9223372036854775806}]}])", false);
  Expect(R"([{"Gt":["big",{"Int":9223372036854775806}]}])", true);
  Expect(R"([{"Eq":["small",{"Int":-9223372036854775808}]}])", true);
  Expect(R"([{"Lt":["small",{"Int":-9223372036854775807}]}])", true);
}

void Rule1MissingKeyMatchesNoLeaf() {
  const char* leaves[] = {
      R"({"Eq":["missing",{"Str":"x"}]})",
      R"({"Ne":["missing",{"Str":"x"}]})",
      R"({"In":["missing",[{"Int":1}]]})",
      R"({"NotIn":["missing",[{"Int":1}]]})",
      R"({"Lt":["missing",{"Int":1}]})",
      R"({"Le":["missing",{"Int":1}]})",
      R"({"Gt":["missing",{"Int":1}]})",
      R"({"Ge":["missing",{"Int":1}]})",
      R"({"Glob":["missing","*"]})",
      R"({"IGlob":["missing","*"]})",
      R"({"Regex":["missing",".*"]})",
      R"({"Contains":["missing",{"Str":"a"}]})",
      R"({"NotContains":["missing",{"Str":"a"}]})",
      R"({"ContainsAny":["missing",[{"Str":"a"}]]})",
      R"({"Fuzzy":["missing","",8]})",
      R"({"ContainsAllTokens":["missing",""]})",
      R"({"ContainsAnyToken":["missing","a"]})",
      R"({"ContainsTokenSequence":["missing",""]})",
  };
  for (const char* leaf : leaves) {
    Expect(std::string("[") + leaf + "]", false);
    Expect(std::string("[") + leaf + "]", false, "");       // a record with no attributes at all
    Expect(std::string("[{\"Not\":") + leaf + "}]", true);  // rule 2: Not is a true complement
  }
}

void Rule2NotIsComplement() {
  Expect(R"([{"Not":{"Eq":["missing",{"Str":"x"}]}}])", true);
  Expect(R"([{"Ne":["missing",{"Str":"x"}]}])", false);
  Expect(R"([{"Not":{"Eq":["s",{"Str":"red"}]}}])", false);
  Expect(R"([{"Not":[{"Eq":["s",{"Str":"red"}]}]}])", false);  // one-element array form
  Expect(R"([{"Not":{"Not":{"Eq":["s",{"Str":"red"}]}}}])", true);
}

void FloatAndIntNeverCrossCompare() {
  Expect(R"([{"Eq":["one",{"Int":1}]}])", false);
  Expect(R"([{"Ne":["one",{"Int":1}]}])", true);
  Expect(R"([{"Eq":["one",{"Float":1}]}])", true);  // a whole JSON number sent as Float is Float
  Expect(R"([{"Eq":["n",{"Float":5}]}])", false);
  Expect(R"([{"Ne":["n",{"Float":5.0}]}])", true);
  Expect(R"([{"In":["one",[{"Int":1}]]}])", false);
  Expect(R"([{"NotIn":["one",[{"Int":1}]]}])", true);
  Expect(R"([{"Lt":["one",{"Int":2}]}])", false);
  Expect(R"([{"Ge":["n",{"Float":1}]}])", false);
  Expect(R"([{"Le":["one",{"Float":1}]}])", true);
}

void NaNAndSignedZero() {
  for (const char* f :
       {R"({"Eq":["nan",{"Float":1}]})", R"({"Ne":["nan",{"Float":1}]})", R"({"Ne":["nan",{"Int":1}]})", R"({"Lt":["nan",{"Float":1}]})",
        R"({"Ge":["nan",{"Float":1}]})", R"({"In":["nan",[{"Float":1}]]})", R"({"NotIn":["nan",[{"Float":1}]]})"}) {
    Expect(std::string("[") + f + "]", false);
    Expect(std::string("[{\"Not\":") + f + "}]", true);
  }
  Expect(R"([{"Eq":["zero",{"Float":-0.0}]}])", true);
  Expect(R"([{"Eq":["zero",{"Float":0}]}])", true);
  Expect(R"([{"Lt":["zero",{"Float":-0.0}]}])", false);
  Expect(R"([{"Ge":["zero",{"Float":-0.0}]}])", true);
  AttrEncoder e;
  e.AddFloat("x", -0.0);
  std::string negative_zero = e.Finish();
  Expect(R"([{"Eq":["x",{"Float":0.0}]}])", true, negative_zero);
  Expect(R"([{"Ne":["x",{"Float":0.0}]}])", false, negative_zero);
  Expect(R"([{"In":["x",[{"Float":0}]]}])", true, negative_zero);
}

void Ranges() {
  Expect(R"([{"Lt":["n",{"Int":6}]}])", true);
  Expect(R"([{"Lt":["n",{"Int":5}]}])", false);
  Expect(R"([{"Le":["n",{"Int":5}]}])", true);
  Expect(R"([{"Gt":["n",{"Int":4}]}])", true);
  Expect(R"([{"Gt":["n",{"Int":5}]}])", false);
  Expect(R"([{"Ge":["n",{"Int":5}]}])", true);
  Expect(R"([{"Gt":["n",{"Int":-9223372036854775808}]}])", true);
  // Str lexically by bytes: uppercase sorts before lowercase, UTF-8 after ASCII.
  Expect(R"([{"Gt":["s",{"Str":"Zebra"}]}])", true);
  Expect(R"([{"Lt":["s",{"Str":"rede"}]}])", true);
  Expect(R"([{"Lt":["s",{"Str":"é"}]}])", true);
  Expect(R"([{"Ge":["s",{"Str":"red"}]}])", true);
  Expect(R"([{"Gt":["s",{"Str":""}]}])", true);
  // Bool: false < true.
  Expect(R"([{"Gt":["b",{"Bool":false}]}])", true);
  Expect(R"([{"Lt":["b",{"Bool":true}]}])", false);
  Expect(R"([{"Le":["b",{"Bool":true}]}])", true);
  Expect(R"([{"Lt":["f",{"Float":1.6}]}])", true);
  Expect(R"([{"Gt":["f",{"Float":1.6}]}])", false);
  Expect(R"([{"Gt":["d",{"DateTime":1699999999999}]}])", true);
  Expect(R"([{"Lt":["d",{"DateTime":1699999999999}]}])", false);
  // Cross-type, Null and List comparisons never match, whichever way round.
  Expect(R"([{"Lt":["s",{"Int":5}]}])", false);
  Expect(R"([{"Gt":["s",{"Int":5}]}])", false);
  Expect(R"([{"Lt":["d",{"Int":9223372036854775807}]}])", false);
  Expect(R"([{"Le":["z","Null"]}])", false);
  Expect(R"([{"Ge":["z","Null"]}])", false);
  Expect(R"([{"Le":["tags",{"List":["a","b c","Run"]}]}])", false);
  Expect(R"([{"Ge":["tags",{"List":[]}]}])", false);
  Expect(R"([{"Lt":["b",{"Int":2}]}])", false);
}

void Sets() {
  Expect(R"([{"In":["s",[{"Str":"blue"},{"Str":"red"}]]}])", true);
  Expect(R"([{"In":["s",[{"Str":"blue"},{"Int":5}]]}])", false);
  Expect(R"([{"In":["n",[{"Str":"5"},{"Int":5}]]}])", true);
  Expect(R"([{"In":["z",["Null"]]}])", true);
  Expect(R"([{"In":["s",[]]}])", false);
  Expect(R"([{"NotIn":["s",[{"Str":"blue"}]]}])", true);
  Expect(R"([{"NotIn":["s",[{"Str":"blue"},{"Str":"red"}]]}])", false);
  Expect(R"([{"NotIn":["s",[]]}])", true);
  Expect(R"([{"NotIn":["z",["Null"]]}])", false);
}

void ListContainment() {
  Expect(R"([{"Contains":["tags",{"Str":"a"}]}])", true);
  Expect(R"([{"Contains":["tags",{"Str":"b c"}]}])", true);
  Expect(R"([{"Contains":["tags",{"Str":"b"}]}])", false);    // whole elements, no substring
  Expect(R"([{"Contains":["tags",{"Str":"run"}]}])", false);  // exact bytes
  Expect(R"([{"Contains":["s",{"Str":"red"}]}])", false);     // a Str is not a List
  Expect(R"([{"Contains":["empty",{"Str":"a"}]}])", false);
  Expect(R"([{"NotContains":["tags",{"Str":"b"}]}])", true);
  Expect(R"([{"NotContains":["tags",{"Str":"a"}]}])", false);
  Expect(R"([{"NotContains":["s",{"Str":"x"}]}])", false);  // present List only
  Expect(R"([{"NotContains":["empty",{"Str":"a"}]}])", true);
  Expect(R"([{"ContainsAny":["tags",[{"Str":"x"},{"Str":"Run"}]]}])", true);
  Expect(R"([{"ContainsAny":["tags",[{"Str":"x"},{"Str":"b"}]]}])", false);
  Expect(R"([{"ContainsAny":["tags",[]]}])", false);
}

void Globs() {
  AttrEncoder e;
  e.AddStr("p", "src/main/Ünïcode_file.txt");
  e.AddStr("star", "a*b?c[d]");
  e.AddStr("empty", "");
  e.AddList("list", {"abc"});
  std::string r = e.Finish();
  Expect(R"([{"Glob":["p","src/*.txt"]}])", true, r);
  Expect(R"([{"Glob":["p","src/*"]}])", true, r);
  Expect(R"([{"Glob":["p","*"]}])", true, r);
  Expect(R"([{"Glob":["p","src"]}])", false, r);    // anchored at the end
  Expect(R"([{"Glob":["p","main*"]}])", false, r);  // anchored at the start
  Expect(R"([{"Glob":["p","*main*"]}])", true, r);
  Expect(R"([{"Glob":["p","src/main/?nïcode_file.txt"]}])", true, r);  // ? is one code point
  Expect(R"([{"Glob":["p","src/main/??nïcode_file.txt"]}])", false, r);
  Expect(R"([{"Glob":["p","src/main/Ün?code_file.???"]}])", true, r);
  Expect(R"([{"Glob":["p","*.tx"]}])", false, r);
  Expect(R"([{"Glob":["p","*_*_*"]}])", false, r);
  Expect(R"([{"Glob":["p","*/*/*_*.txt"]}])", true, r);
  Expect(R"([{"Glob":["p","[a-s]rc/*"]}])", true, r);
  Expect(R"([{"Glob":["p","[t-z]rc/*"]}])", false, r);
  Expect(R"([{"Glob":["p","[!t-z]rc/*"]}])", true, r);
  Expect(R"([{"Glob":["p","[^s]rc/*"]}])", false, r);
  Expect(R"([{"Glob":["p","src/main/[ÜU]*"]}])", true, r);
  Expect(R"([{"Glob":["p","SRC/*"]}])", false, r);
  Expect(R"([{"IGlob":["p","SRC/MAIN/Ü*.TXT"]}])", true, r);
  Expect(R"([{"IGlob":["p","SRC/MAIN/ü*.TXT"]}])", false, r);  // ASCII case only
  Expect(R"([{"IGlob":["p","[R-T]RC/*"]}])", true, r);
  Expect(R"([{"IGlob":["p","[!S]rc/*"]}])", false, r);
  Expect(R"([{"Glob":["star","a\\*b\\?c\\[d]"]}])", true, r);  // backslash escapes
  Expect(R"([{"Glob":["star","a\\*b\\?c\\[e]"]}])", false, r);
  Expect(R"([{"Glob":["star","a[*]b[?]c[[]d[]]"]}])", true, r);  // specials inside a class are literal
  Expect(R"([{"Glob":["empty",""]}])", true, r);
  Expect(R"([{"Glob":["empty","*"]}])", true, r);
  Expect(R"([{"Glob":["empty","?"]}])", false, r);
  Expect(R"([{"Glob":["list","*"]}])", false, r);  // patterns apply to Str attributes
  Expect(R"([{"Glob":["n","*"]}])", false);
}

void Regexes() {
  Expect(R"([{"Regex":["s","r.d"]}])", true);
  Expect(R"([{"Regex":["s","re"]}])", false);  // anchored at the end
  Expect(R"([{"Regex":["s","ed"]}])", false);  // anchored at the start
  Expect(R"([{"Regex":["s","red|blue"]}])", true);
  Expect(R"([{"Regex":["s","a|red"]}])", true);  // anchoring wraps the whole alternation
  Expect(R"([{"Regex":["s","RED"]}])", false);
  Expect(R"([{"Regex":["s","(?i)RED"]}])", true);
  Expect(R"([{"Regex":["u","caf. \\p{Lu}.*"]}])", true);  // UTF-8: . is one code point
  Expect(R"([{"Regex":["tags",".*"]}])", false);          // patterns apply to Str attributes
  Expect(R"([{"Regex":["n","5"]}])", false);
  // Linear time: the classic catastrophic-backtracking pattern returns at once.
  AttrEncoder e;
  e.AddStr("a", std::string(5000, 'a') + "!");
  Expect(R"([{"Regex":["a","(a+)+$"]}])", false, e.Finish());
}

void Fuzzy() {
  AttrEncoder e;
  e.AddStr("w", "kitten");
  e.AddStr("ab", "ab");
  e.AddStr("u", "Café");
  e.AddList("l", {"zzzz", "Sitting"});
  e.AddStr("empty", "");
  std::string r = e.Finish();
  Expect(R"([{"Fuzzy":["w","sitting",3]}])", true, r);
  Expect(R"([{"Fuzzy":["w","sitting",2]}])", false, r);
  Expect(R"([{"Fuzzy":["w","kitten",0]}])", true, r);
  Expect(R"([{"Fuzzy":["w","KITTEN",0]}])", true, r);  // ASCII case folded on both sides
  Expect(R"([{"Fuzzy":["ab","ba",1]}])", false, r);    // a transposition costs 2
  Expect(R"([{"Fuzzy":["ab","ba",2]}])", true, r);
  Expect(R"([{"Fuzzy":["u","cafe",1]}])", true, r);  // é is one character
  Expect(R"([{"Fuzzy":["u","cafe",0]}])", false, r);
  Expect(R"([{"Fuzzy":["u","CAFé",0]}])", true, r);
  Expect(R"([{"Fuzzy":["u","cafÉ",0]}])", false, r);   // folding is ASCII only
  Expect(R"([{"Fuzzy":["l","kitten",3]}])", true, r);  // any List element
  Expect(R"([{"Fuzzy":["l","kitten",2]}])", false, r);
  Expect(R"([{"Fuzzy":["empty","ab",2]}])", true, r);
  Expect(R"([{"Fuzzy":["empty","abc",2]}])", false, r);
  Expect(R"([{"Fuzzy":["w","",6]}])", true, r);
  Expect(R"([{"Fuzzy":["w","",5]}])", false, r);
  Expect(R"([{"Fuzzy":["w","kitten and more",8]}])", false, r);
  Expect(R"([{"Fuzzy":["n","5",8]}])", false);
  Expect(R"([{"Fuzzy":["w","kitten",8.0]}])", true, r);
}

void Tokens() {
  AttrEncoder e;
  e.AddStr("t", "The quick brown Fox runs, jumping-over 42 dogs");
  e.AddStr("u", "Crème brûlée—déjà vu×2 「東京」タワー");
  e.AddList("l", {"alpha beta", "gamma delta"});
  std::string r = e.Finish();
  Expect(R"([{"ContainsAllTokens":["t","fox quick"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["t","fox cat"]}])", false, r);
  Expect(R"([{"ContainsAllTokens":["t","run"]}])", false, r);  // no stemming
  Expect(R"([{"ContainsAllTokens":["t","runs"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["t","the"]}])", true, r);  // no stopwords
  Expect(R"([{"ContainsAllTokens":["t","JUMPING, over!"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["t","42"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["t","4"]}])", false, r);
  Expect(R"([{"ContainsAllTokens":["t","jumping-over"]}])", true, r);
  Expect(R"([{"ContainsAnyToken":["t","cat dog dogs"]}])", true, r);
  Expect(R"([{"ContainsAnyToken":["t","cat dog"]}])", false, r);
  Expect(R"([{"ContainsTokenSequence":["t","quick brown fox"]}])", true, r);
  Expect(R"([{"ContainsTokenSequence":["t","brown quick"]}])", false, r);
  Expect(R"([{"ContainsTokenSequence":["t","quick fox"]}])", false, r);  // consecutive
  Expect(R"([{"ContainsTokenSequence":["t","runs jumping over 42"]}])", true, r);
  // Non-ASCII letters are token characters, folded only in ASCII; punctuation blocks split.
  Expect(R"([{"ContainsAllTokens":["u","CRÈME"]}])", false, r);  // È is not folded
  Expect(R"([{"ContainsAllTokens":["u","crème brûlée"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["u","CRèME"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["u","crÈme"]}])", false, r);
  Expect(R"([{"ContainsTokenSequence":["u","brûlée déjà vu 2"]}])", true, r);  // — and × split
  Expect(R"([{"ContainsTokenSequence":["u","東京 タワー"]}])", true, r);       // 「」 split
  // A List is read element by element: all tokens must come from one element.
  Expect(R"([{"ContainsAllTokens":["l","beta alpha"]}])", true, r);
  Expect(R"([{"ContainsAllTokens":["l","alpha gamma"]}])", false, r);
  Expect(R"([{"ContainsAnyToken":["l","x delta"]}])", true, r);
  Expect(R"([{"ContainsTokenSequence":["l","beta gamma"]}])", false, r);
  Expect(R"([{"ContainsTokenSequence":["l","gamma delta"]}])", true, r);
  // A query with no tokens asserts nothing: All and Sequence hold, Any does not.
  Expect(R"([{"ContainsAllTokens":["t"," ,. "]}])", true, r);
  Expect(R"([{"ContainsTokenSequence":["t",""]}])", true, r);
  Expect(R"([{"ContainsAnyToken":["t",""]}])", false, r);
  Expect(R"([{"ContainsAllTokens":["n","5"]}])", false);  // text predicates read Str or List
  // KMP fallback: a repeated prefix must not hide a later match.
  AttrEncoder k;
  k.AddStr("x", "a a a b a a b c");
  std::string kr = k.Finish();
  Expect(R"([{"ContainsTokenSequence":["x","a a b c"]}])", true, kr);
  Expect(R"([{"ContainsTokenSequence":["x","a a a a"]}])", false, kr);
  Expect(R"([{"ContainsTokenSequence":["x","a b a a b"]}])", true, kr);
}

void Groups() {
  Expect(R"([{"All":[]}])", true);
  Expect(R"([{"Any":[]}])", false);
  Expect(R"([{"Not":{"Any":[]}}])", true);
  Expect(R"([{"All":[{"Eq":["s",{"Str":"red"}]},{"Gt":["n",{"Int":1}]}]}])", true);
  Expect(R"([{"All":[{"Eq":["s",{"Str":"red"}]},{"Gt":["n",{"Int":9}]}]}])", false);
  Expect(R"([{"Any":[{"Eq":["s",{"Str":"blue"}]},{"Gt":["n",{"Int":1}]}]}])", true);
  Expect(R"([{"Any":[{"Eq":["s",{"Str":"blue"}]},{"Gt":["n",{"Int":9}]}]}])", false);
  Expect(R"([{"Any":[{"All":[]},{"Eq":["missing","Null"]}]}])", true);
  Expect(R"([{"Not":{"All":[{"Eq":["s",{"Str":"red"}]},{"Not":{"Eq":["missing","Null"]}}]}}])", false);
}

void Errors() {
  ExpectError(R"({"Eq":["s",{"Str":"red"}]})", {"filter must be an array"});
  ExpectError(R"([{"Eq":["s",{"Str":"red"}]})", {"queries[2].filter", "not valid JSON"}, "queries[2].filter");
  ExpectError(R"([{"Eq":["s",{"Str":"red"}]}, 5])", {"queries[2].filter[1]", "must be a predicate"}, "queries[2].filter");
  ExpectError(R"([{"Eq":["s",{"Str":"red"}],"Ne":["s",{"Str":"x"}]}])", {"filter[0]", "one key"});
  ExpectError(R"([{"Equals":["s",{"Str":"red"}]}])", {"filter[0]", "unknown predicate 'Equals'", "Eq"});
  ExpectError(R"([{"Eq":["s"]}])", {"filter[0].Eq", "[key, Value]"});
  ExpectError(R"([{"Eq":"s"}])", {"filter[0].Eq", "[key, Value]"});
  ExpectError(R"([{"Eq":[5,{"Str":"red"}]}])", {"filter[0].Eq[0]", "key"});
  ExpectError(R"([{"Eq":["s","red"]}])", {"filter[0].Eq[1]", "Null"});
  ExpectError(R"([{"Eq":["s",{"Text":"red"}]}])", {"filter[0].Eq[1]", "unknown Value variant 'Text'"});
  ExpectError(R"([{"Eq":["s",{"Str":1}]}])", {"filter[0].Eq[1].Str", "string"});
  ExpectError(R"([{"Eq":["n",{"Int":9223372036854775808}]}])", {"filter[0].Eq[1].Int", "64-bit"});
  ExpectError(R"([{"Eq":["n",{"Int":1.5}]}])", {"filter[0].Eq[1].Int", "integer"});
  ExpectError(R"([{"Eq":["n",{"DateTime":"2024"}]}])", {"filter[0].Eq[1].DateTime", "integer"});
  ExpectError(R"([{"Eq":["n",{"Float":"1"}]}])", {"filter[0].Eq[1].Float", "number"});
  ExpectError(R"([{"Eq":["n",{"Bool":1}]}])", {"filter[0].Eq[1].Bool", "true or false"});
  ExpectError(R"([{"Eq":["n",{"List":["a",1]}]}])", {"filter[0].Eq[1].List[1]", "string"});
  ExpectError(R"([{"In":["s",{"Str":"red"}]}])", {"filter[0].In[1]", "array of Values"});
  ExpectError(R"([{"NotIn":["s",[{"Str":"a"},"x"]]}])", {"filter[0].NotIn[1][1]"});
  ExpectError(R"([{"Contains":["tags",{"Int":1}]}])", {"filter[0].Contains[1]", "Str"});
  ExpectError(R"([{"ContainsAny":["tags",[{"Str":"a"},{"List":["b"]}]]}])", {"filter[0].ContainsAny[1][1]", "Str"});
  ExpectError(R"([{"Glob":["s",5]}])", {"filter[0].Glob[1]", "string"});
  ExpectError(R"([{"Glob":["s","[abc"]}])", {"filter[0].Glob", "[abc", "unclosed"});
  ExpectError(R"([{"IGlob":["s","abc\\"]}])", {"filter[0].IGlob", "lone"});
  ExpectError(R"([{"Regex":["s","a(b"]}])", {"filter[0].Regex", "'a(b'", "missing )"});
  ExpectError(R"([{"Regex":["s","a**"]}])", {"filter[0].Regex", "'a**'", "bad repetition operator"});
  ExpectError(R"([{"All":[{"Regex":["s","(?P<n"]}]}])", {"filter[0].All[0].Regex"});
  ExpectError(R"([{"Fuzzy":["s","red",9]}])", {"filter[0].Fuzzy[2]", "0 to 8", "not clamped"});
  ExpectError(R"([{"Fuzzy":["s","red",-1]}])", {"filter[0].Fuzzy[2]", "0 to 8"});
  ExpectError(R"([{"Fuzzy":["s","red",1.5]}])", {"filter[0].Fuzzy[2]", "integer"});
  ExpectError(R"([{"Fuzzy":["s","red","2"]}])", {"filter[0].Fuzzy[2]", "integer"});
  ExpectError(R"([{"Fuzzy":["s","red"]}])", {"filter[0].Fuzzy", "[key, text, max_edits]"});
  ExpectError(R"([{"Fuzzy":["s",1,1]}])", {"filter[0].Fuzzy[1]", "string"});
  ExpectError(R"([{"ContainsAllTokens":["s",["a"]]}])", {"filter[0].ContainsAllTokens[1]", "string"});
  ExpectError(R"([{"All":{"Eq":["s",{"Str":"red"}]}}])", {"filter[0].All", "array of predicates"});
  ExpectError(R"([{"Any":[{"Bogus":[]}]}])", {"filter[0].Any[0]", "unknown predicate 'Bogus'"});
  ExpectError(R"([{"Not":[]}])", {"filter[0].Not", "one predicate"});
  ExpectError(R"([{"Not":[{"All":[]},{"All":[]}]}])", {"filter[0].Not", "one predicate"});
  ExpectError(R"([{"Not":{"Eq":["s"]}}])", {"filter[0].Not.Eq"});
  std::string deep = "[";
  for (int i = 0; i < 40; ++i) deep += "{\"Not\":";
  deep += "{\"All\":[]}";
  for (int i = 0; i < 40; ++i) deep += "}";
  ExpectError(deep + "]", {"deep"});
}

// Plain O(n*m) Levenshtein on folded code points, the reference for the banded FuzzyMatcher.
int Levenshtein(std::string_view a, std::string_view b) {
  auto points = [](std::string_view s) {
    std::vector<uint32_t> out;
    for (size_t pos = 0; pos < s.size();) out.push_back(AsciiLower(NextCodePoint(s, &pos)));
    return out;
  };
  std::vector<uint32_t> x = points(a), y = points(b);
  std::vector<int> row(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) row[j] = int(j);
  for (size_t i = 1; i <= x.size(); ++i) {
    int diagonal = row[0];
    row[0] = int(i);
    for (size_t j = 1; j <= y.size(); ++j) {
      int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (x[i - 1] != y[j - 1])});
      diagonal = up;
    }
  }
  return row[y.size()];
}

// A recursive reference glob over code points: * ? literals and [..] classes (no escapes).
bool GlobReference(const std::vector<uint32_t>& p, size_t i, const std::vector<uint32_t>& s, size_t j) {
  if (i == p.size()) return j == s.size();
  if (p[i] == '*') return GlobReference(p, i + 1, s, j) || (j < s.size() && GlobReference(p, i, s, j + 1));
  if (j == s.size()) return false;
  if (p[i] == '?') return GlobReference(p, i + 1, s, j + 1);
  if (p[i] == '[') {
    size_t k = i + 1;
    bool negated = p[k] == '!';
    if (negated) ++k;
    bool in = false;
    for (; p[k] != ']'; ++k) in |= p[k] == s[j];
    return in != negated && GlobReference(p, k + 1, s, j + 1);
  }
  return p[i] == s[j] && GlobReference(p, i + 1, s, j + 1);
}

std::string Utf8(const std::vector<uint32_t>& points) {
  std::string out;
  for (uint32_t cp : points) {
    if (cp < 0x80) {
      out += char(cp);
    } else {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  return out;
}

void RandomFuzzyAgainstReference() {
  std::mt19937 rng(7);
  const uint32_t alphabet[] = {'a', 'b', 'c', 'A', 'B', 0xE9, 0xC9};
  auto word = [&](size_t max_len) {
    std::vector<uint32_t> w(rng() % (max_len + 1));
    for (uint32_t& cp : w) cp = alphabet[rng() % 7];
    return Utf8(w);
  };
  int mismatches = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string q = word(10), t = word(14);
    int k = int(rng() % (kMaxFuzzyEdits + 1));
    bool want = Levenshtein(q, t) <= k;
    if (FuzzyMatcher(q, k).Matches(t) != want && ++mismatches <= 5) std::printf("  fuzzy '%s' '%s' k=%d\n", q.c_str(), t.c_str(), k);
  }
  Check(mismatches == 0, "FuzzyMatcher agrees with full Levenshtein on 20000 random pairs");
}

// Random patterns over a small alphabet; IGlob is checked as Glob over ASCII-lowered inputs.
void RandomGlobAgainstReference() {
  std::mt19937 rng(11);
  const uint32_t text_chars[] = {'a', 'b', 'A', 'B', 0xE9};
  const uint32_t pattern_chars[] = {'a', 'b', 'A', 0xE9, '*', '?', '*', '?'};
  auto lower = [](std::vector<uint32_t> v) {
    for (uint32_t& cp : v) cp = AsciiLower(cp);
    return v;
  };
  int mismatches = 0;
  for (int trial = 0; trial < 40000; ++trial) {
    bool ignore_case = trial % 2;
    std::vector<uint32_t> s(rng() % 9), p;
    for (uint32_t& cp : s) cp = text_chars[rng() % 5];
    for (size_t n = rng() % 7; n > 0; --n) {
      if (rng() % 6 == 0) {
        p.push_back('[');
        if (rng() % 2) p.push_back('!');
        for (size_t m = 1 + rng() % 2; m > 0; --m) p.push_back(text_chars[rng() % 5]);
        p.push_back(']');
      } else {
        p.push_back(pattern_chars[rng() % 8]);
      }
    }
    GlobPattern glob;
    std::string error;
    bool ok = GlobPattern::Parse(Utf8(p), ignore_case, &glob, &error);
    bool want = ignore_case ? GlobReference(lower(p), 0, lower(s), 0) : GlobReference(p, 0, s, 0);
    if ((!ok || glob.Matches(Utf8(s)) != want) && ++mismatches <= 5)
      std::printf("  glob '%s' on '%s' ignore_case=%d want %d\n", Utf8(p).c_str(), Utf8(s).c_str(), int(ignore_case), int(want));
  }
  Check(mismatches == 0, "GlobPattern agrees with a recursive reference on 40000 random pairs");
}

// A compiled filter is shared by the threads scanning one query.
void ConcurrentUse() {
  Filter f = Filter::CompileText(
      R"([{"Regex":["t","(?i).*FOX.*"]},{"Fuzzy":["tags","rum",1]},{"ContainsTokenSequence":["t","brown fox"]}])", "filter");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int k = 0; k < 20000; ++k) wrong += !f.Matches(kSample) + f.Matches("");
    });
  }
  for (std::thread& t : threads) t.join();
  Check(wrong == 0, "one Filter evaluated from 4 threads at once");
}

}  // namespace

int main() {
  EmptyFilter();
  Equality();
  Rule1MissingKeyMatchesNoLeaf();
  Rule2NotIsComplement();
  FloatAndIntNeverCrossCompare();
  NaNAndSignedZero();
  Ranges();
  Sets();
  ListContainment();
  Globs();
  Regexes();
  Fuzzy();
  Tokens();
  Groups();
  Errors();
  RandomFuzzyAgainstReference();
  RandomGlobAgainstReference();
  ConcurrentUse();
  return test::Report();
}
