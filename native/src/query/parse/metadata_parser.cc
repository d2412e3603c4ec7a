#include "query/parse/metadata_parser.h"

#include <optional>

#include "query/parse/body_reader.h"
#include "query/search_params.h"
#include "util/json_reader.h"

namespace tessera {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

ListParams ParseList(std::string_view body) {
  ListParams p;
  if (body.empty()) return p;
  RequestBody parsed(body);
  for (auto [key, value] : parsed.Object()) {
    std::string f(key);
    if (key == "scope")
      p.scope = ExpectStrings(value, f);
    else if (key == "filter")
      p.filter = Filter::Compile(value, f);
    else if (key == "offset")
      p.offset = ExpectCount(value, f, UINT32_MAX);
    else if (key == "limit")
      p.limit = ExpectCount(value, f, kMaxRankDepth);
    else if (key == "include_attributes")
      p.projection.include = ExpectStrings(value, f);
    else if (key == "exclude_attributes")
      p.projection.exclude = ExpectStrings(value, f);
    else if (key == "order_by") {
      if (value.type() == element_type::NULL_VALUE) continue;
      OrderBy ob;
      bool has_field = false;
      for (auto [k, v] : ExpectObject(value, f)) {
        if (k == "field") {
          ob.field = JsonString(v, "order_by.field");
          has_field = true;
        } else if (k == "descending") {
          ob.descending = ExpectBool(v, "order_by.descending");
        } else {
          UnknownField(k, " in order_by", "field, descending");
        }
      }
      if (!has_field || ob.field.empty()) Bad("order_by.field is required: the attribute to sort by");
      p.order_by = ob;
    } else {
      UnknownField(key, " in the list body", "scope, filter, offset, limit, include_attributes, exclude_attributes, order_by");
    }
  }
  if (p.projection.include && p.projection.exclude) Bad("include_attributes and exclude_attributes cannot both be sent; pick one");
  return p;
}

AggregateParams ParseAggregate(std::string_view body) {
  AggregateParams p;
  if (body.empty()) return p;
  RequestBody parsed(body);
  for (auto [key, value] : parsed.Object()) {
    if (key == "scope")
      p.scope = ExpectStrings(value, "scope");
    else if (key == "filter")
      p.filter = Filter::Compile(value, "filter");
    else if (key == "sum")
      p.sum = ExpectStrings(value, "sum");
    else if (key == "group_by") {
      if (value.type() == element_type::NULL_VALUE) continue;
      p.group_by = JsonString(value, "group_by");
      if (p.group_by->empty()) Bad("group_by must name an attribute");
    } else {
      UnknownField(key, " in the aggregate body", "scope, filter, sum, group_by");
    }
  }
  return p;
}

std::vector<std::string> ParseGet(std::string_view body) {
  RequestBody parsed(body);
  std::optional<std::vector<std::string>> ids;
  for (auto [key, value] : parsed.Object()) {
    if (key == "ids")
      ids = ExpectStrings(value, "ids");
    else
      UnknownField(key, " in the get body", "ids");
  }
  if (!ids) Bad("the get body needs ids: {\"ids\": [\"a\", \"b\"]}");
  return std::move(*ids);
}

}  // namespace tessera
