// Checks expand's stitching byte for byte: chunks cut from a source text the way the chunker cuts
// them (exact slices by code point, each starting `overlap` characters behind the previous end)
// stitch back into exactly the source, over ASCII, two-, three- and four-byte characters; any
// other join is a blank line. Prints "N passed, M failed" and exits non-zero on any failure.
#include "query/expand.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check.h"

using namespace tessera;

namespace {

using test::Check;

// é (2 bytes), 中文 (3 bytes each) and emoji (4 bytes) beside ASCII, so any byte-for-character
// slip cuts a character in two or repeats part of one.
const std::string kSource = "Café au lait, 中文字符 and 😀 emoji 🎉; naïve résumé, 東京 → 大阪, done.";

// The byte offset of each code point of s, and s.size() last.
std::vector<size_t> CodePointStarts(const std::string& s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(s.size());
  return starts;
}

struct Cut {
  std::vector<std::string> texts;  // owns what the ChunkTexts view
  std::vector<ChunkText> chunks;
};

// The source cut into chunks of max_chars characters, each starting overlap characters behind the
// previous one's end, with their offsets.
Cut Chunk(const std::string& source, int64_t max_chars, int64_t overlap) {
  std::vector<size_t> at = CodePointStarts(source);
  int64_t chars = int64_t(at.size()) - 1;
  Cut cut;
  for (int64_t start = 0;; start += max_chars - overlap) {
    int64_t end = std::min(chars, start + max_chars);
    cut.texts.push_back(source.substr(at[start], at[end] - at[start]));
    cut.chunks.push_back({int64_t(cut.chunks.size()), start, {}});
    if (end == chars) break;
  }
  for (size_t i = 0; i < cut.chunks.size(); ++i) cut.chunks[i].text = cut.texts[i];
  return cut;
}

// The source's characters [begin, end).
std::string Slice(const std::string& source, int64_t begin, int64_t end) {
  std::vector<size_t> at = CodePointStarts(source);
  return source.substr(at[begin], at[end] - at[begin]);
}

void StitchingOverlappingChunksGivesBackTheSource() {
  for (int64_t max_chars : {1, 2, 3, 5, 8, 13, 40, 200}) {
    for (int64_t overlap = 0; overlap < max_chars && overlap < 12; ++overlap) {
      Cut cut = Chunk(kSource, max_chars, overlap);
      std::string what = "max " + std::to_string(max_chars) + " overlap " + std::to_string(overlap);
      Check(StitchChunks(cut.chunks) == kSource, "all chunks stitch to the source: " + what);
      // Any run of consecutive chunks is the source between the first's start and the last's end.
      for (size_t a = 0; a < cut.chunks.size(); a += 3) {
        for (size_t b = a; b < cut.chunks.size() && b < a + 4; ++b) {
          std::vector<ChunkText> run(cut.chunks.begin() + a, cut.chunks.begin() + b + 1);
          int64_t begin = *run.front().char_start;
          int64_t end = *run.back().char_start + int64_t(CodePointStarts(cut.texts[b]).size()) - 1;
          Check(StitchChunks(run) == Slice(kSource, begin, end), "chunks " + std::to_string(a) + ".." + std::to_string(b) + ": " + what);
        }
      }
    }
  }
}

void OneChunkIsItsOwnText() {
  Cut cut = Chunk(kSource, 9, 2);
  for (const ChunkText& c : cut.chunks) Check(StitchChunks({c}) == std::string(c.text), "radius 0: the chunk's own text");
  Check(StitchChunks({}).empty(), "no chunks: empty");
}

void AMissingIndexIsABlankLine() {
  Cut cut = Chunk(kSource, 10, 3);
  std::vector<ChunkText> gap = {cut.chunks[0], cut.chunks[1], cut.chunks[3], cut.chunks[4]};
  std::string expected = StitchChunks({cut.chunks[0], cut.chunks[1]}) + "\n\n" + StitchChunks({cut.chunks[3], cut.chunks[4]});
  Check(StitchChunks(gap) == expected, "a missing neighbour splits the context with a blank line");
}

void ChunksWithoutOffsetsAreJoinedWithBlankLines() {
  ChunkText a{0, std::nullopt, "first é"}, b{1, std::nullopt, "é second"}, c{2, std::nullopt, "third"};
  Check(StitchChunks({a, b, c}) == "first é\n\né second\n\nthird", "no offsets: blank lines, nothing dropped");
  ChunkText b_offset{1, 5, "é second"};
  Check(StitchChunks({a, b_offset, c}) == "first é\n\né second\n\nthird", "an offset on one side only: blank line");
  ChunkText a_negative{0, -2, "first é"}, b_negative{1, 5, "é second"};
  Check(StitchChunks({a_negative, b_negative}) == "first é\n\né second", "a negative offset counts as none");
}

void OffsetsThatNeitherOverlapNorTouchAreJoinedWithBlankLines() {
  ChunkText a{0, 0, "abc"}, touching{1, 3, "déf"}, apart{1, 4, "déf"};
  Check(StitchChunks({a, touching}) == "abcdéf", "touching offsets: joined with nothing between");
  Check(StitchChunks({a, apart}) == "abc\n\ndéf", "a gap between the texts: blank line");
  ChunkText later{0, 10, "abc"}, earlier{1, 8, "xyzabc"};
  Check(StitchChunks({later, earlier}) == "abc\n\nxyzabc", "offsets going backwards: blank line");
}

void AChunkInsideThePreviousAddsNothing() {
  // Offsets 0-9, 2-5 (inside the first) and 8-13: the third continues from the first's end.
  ChunkText a{0, 0, "0123456789"}, inside{1, 2, "234"}, next{2, 8, "89abc"};
  Check(StitchChunks({a, inside, next}) == "0123456789abc", "a chunk within the text stitched so far adds nothing");
}

void TheOverlapIsCountedInCharactersNotBytes() {
  // "日本語" is 3 characters and 9 bytes; the second chunk starts 2 characters into the first.
  ChunkText a{0, 0, "日本語"}, b{1, 1, "本語です"};
  Check(StitchChunks({a, b}) == "日本語です", "three-byte characters");
  ChunkText e1{0, 0, "😀🎉"}, e2{1, 1, "🎉x"};
  Check(StitchChunks({e1, e2}) == "😀🎉x", "four-byte characters");
}

}  // namespace

int main() {
  StitchingOverlappingChunksGivesBackTheSource();
  OneChunkIsItsOwnText();
  AMissingIndexIsABlankLine();
  ChunksWithoutOffsetsAreJoinedWithBlankLines();
  OffsetsThatNeitherOverlapNorTouchAreJoinedWithBlankLines();
  AChunkInsideThePreviousAddsNothing();
  TheOverlapIsCountedInCharactersNotBytes();
  return test::Report();
}
