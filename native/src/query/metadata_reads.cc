#include "query/metadata_reads.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

#include "query/hit_writer.h"
#include "query/scan.h"
#include "storage/field_reader.h"
#include "util/json_writer.h"
#include "util/value.h"

namespace tessera {
namespace {

constexpr size_t kMaxGroups = 10000;

bool Orderable(ValueTag t) {
  return t == ValueTag::kInt || t == ValueTag::kStr || t == ValueTag::kBool || t == ValueTag::kFloat || t == ValueTag::kDateTime;
}

// Natural order of two values of the same tag (Float numerically, Str by bytes, List element-wise).
int CompareSameTag(const ValueView& a, const ValueView& b) {
  switch (a.tag) {
    case ValueTag::kFloat: return a.f < b.f ? -1 : a.f > b.f ? 1 : 0;
    case ValueTag::kStr: return a.s.compare(b.s) < 0 ? -1 : a.s == b.s ? 0 : 1;
    case ValueTag::kList: {  // element by element, then the shorter list first
      std::vector<std::string_view> x = ListElements(a), y = ListElements(b);
      return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end()) ? -1 : x == y ? 0 : 1;
    }
    case ValueTag::kNull: return 0;
    default: return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  }
}

// Sum of the numeric values of one attribute: Int while every addend is Int, Float once any
// Float joins (or an Int sum leaves the 64-bit range).
struct Sum {
  __int128 ints = 0;
  double floats = 0;
  bool any_float = false;
  void Add(const ValueView& v) {
    if (v.tag == ValueTag::kInt)
      ints += v.i;
    else if (v.tag == ValueTag::kFloat) {
      floats += v.f;
      any_float = true;
    }
  }
  void Merge(const Sum& o) {
    ints += o.ints;
    floats += o.floats;
    any_float = any_float || o.any_float;
  }
  void Write(JsonWriter& w) const {
    JsonWriter::Scope value = w.Object();
    if (!any_float && ints >= INT64_MIN && ints <= INT64_MAX) {
      w.Member("Int", int64_t(ints));
    } else {
      w.Member("Float", double(ints) + floats);
    }
  }
};

struct Group {
  bool missing;
  ValueView value;
  uint64_t count = 0;
  std::vector<Sum> sums;
};

void AddRecord(const MatchedRow& r, std::vector<FieldReader>& fields, std::vector<Sum>& sums) {
  ValueView v;
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].Find(*r.segment, r.row, &v)) sums[i].Add(v);
}

void WriteSums(JsonWriter& w, const std::vector<std::string>& fields, const std::vector<Sum>& sums) {
  JsonWriter::Scope object = w.Object();
  for (size_t i = 0; i < fields.size(); ++i) {
    w.Key(fields[i]);
    sums[i].Write(w);
  }
}

void WriteGroups(JsonWriter& w, const std::vector<Group>& groups, const std::vector<std::string>& fields) {
  JsonWriter::Scope list = w.Array();
  for (const Group& g : groups) {
    JsonWriter::Scope group = w.Object();
    w.Key("value");
    if (g.missing)
      w.Null();
    else
      WriteValueJson(w, g.value);
    w.Member("count", g.count);
    w.Key("sums");
    WriteSums(w, fields, g.sums);
  }
}

}  // namespace

std::string ListRecords(const QueryContext& ctx, const ListParams& p) {
  std::vector<const CollectionState*> scope = ResolveScope(ctx.snap, p.scope);
  std::vector<MatchedRow> rows = MatchRows(ctx.snap, scope, p.filter, ctx.pool, ctx.cancel);
  if (p.order_by) {
    // The first orderable value fixes the type; everything else trails, in storage order, even
    // when the order is reversed.
    struct Keyed {
      MatchedRow row;
      ValueView value;
    };
    std::vector<Keyed> ordered;
    std::vector<MatchedRow> trailing;
    std::optional<ValueTag> type;
    FieldReader field(p.order_by->field);
    for (const MatchedRow& r : rows) {
      ValueView v;
      bool present = field.Find(*r.segment, r.row, &v);
      if (present && !type && Orderable(v.tag)) type = v.tag;
      if (present && type && v.tag == *type)
        ordered.push_back({r, v});
      else
        trailing.push_back(r);
    }
    bool desc = p.order_by->descending;
    std::stable_sort(ordered.begin(), ordered.end(), [desc](const Keyed& a, const Keyed& b) {
      int c = CompareSameTag(a.value, b.value);
      return desc ? c > 0 : c < 0;
    });
    rows.clear();
    for (const Keyed& k : ordered) rows.push_back(k.row);
    rows.insert(rows.end(), trailing.begin(), trailing.end());
  }
  std::vector<Candidate> page;
  size_t end = std::min(rows.size(), size_t(p.offset) + p.limit);
  for (size_t i = p.offset; i < end; ++i) page.push_back({0.0f, rows[i].scope_index, rows[i].segment, rows[i].row});
  return HitsJson(page, 0, page.size(), ScopeNames(scope), p.projection);
}

std::string Aggregate(const QueryContext& ctx, const AggregateParams& p) {
  std::vector<const CollectionState*> scope = ResolveScope(ctx.snap, p.scope);
  std::vector<MatchedRow> rows = MatchRows(ctx.snap, scope, p.filter, ctx.pool, ctx.cancel);
  std::vector<Sum> sums(p.sum.size());
  std::vector<FieldReader> sum_fields(p.sum.begin(), p.sum.end());
  std::optional<FieldReader> group_field;
  if (p.group_by) group_field.emplace(*p.group_by);
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> group_index;
  bool truncated = false;
  for (const MatchedRow& r : rows) {
    AddRecord(r, sum_fields, sums);
    if (!group_field) continue;
    ValueView v;
    bool present = group_field->Find(*r.segment, r.row, &v);
    std::string key = present ? ValueKey(v) : std::string();  // "" is the missing-attribute group
    auto it = group_index.find(key);
    if (it == group_index.end()) {
      if (groups.size() == kMaxGroups) {
        truncated = true;  // distinct values past the cap are dropped, first come first kept
        continue;
      }
      it = group_index.emplace(key, groups.size()).first;
      groups.push_back(Group{!present, v, 0, std::vector<Sum>(p.sum.size())});
    }
    Group& g = groups[it->second];
    ++g.count;
    AddRecord(r, sum_fields, g.sums);
  }
  // Count desc; ties by value (variant order Str, Int, Bool, List, Float, DateTime, Null, then
  // natural order within a variant), the missing-attribute group last.
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.missing != b.missing) return b.missing;
    if (a.missing) return false;
    if (a.value.tag != b.value.tag) return a.value.tag < b.value.tag;
    return CompareSameTag(a.value, b.value) < 0;
  });
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Member("count", rows.size());
  w.Key("sums");
  WriteSums(w, p.sum, sums);
  if (p.group_by) {
    w.Key("groups");
    WriteGroups(w, groups, p.sum);
    if (truncated) w.Member("groups_truncated", true);
  }
  w.EndObject();
  return out;
}

}  // namespace tessera
