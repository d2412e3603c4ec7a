#include "store_wrap.h"

#include <cctype>
#include <optional>
#include <type_traits>

#include "addon_data.h"
#include "args.h"
#include "core_task.h"
#include "read_call.h"
#include "records_cursor_wrap.h"
#include "rerank_window_wrap.h"
#include "shared_stores.h"

namespace tessera_addon {

using tessera::CancelToken;
using tessera::ReadRoute;
using tessera::Store;

Napi::Function StoreWrap::Define(Napi::Env env) {
  return DefineClass(env, "NativeStore",
                     {
                         StaticMethod<&StoreWrap::Open>("open"),
                         StaticMethod<&StoreWrap::Check>("check"),
                         StaticMethod<&StoreWrap::IndexSettings>("indexSettings"),
                         StaticMethod<&StoreWrap::Adopt>("adopt"),
                         InstanceMethod<&StoreWrap::Share>("share"),
                         InstanceMethod<&StoreWrap::Drop>("drop"),
                         InstanceMethod<&StoreWrap::Call<&Store::Collections>>("collections"),
                         InstanceMethod<&StoreWrap::Call<&Store::CreateCollection>>("createCollection"),
                         InstanceMethod<&StoreWrap::Call<&Store::DropCollection>>("dropCollection"),
                         InstanceMethod<&StoreWrap::Call<&Store::GetMeta>>("getMeta"),
                         InstanceMethod<&StoreWrap::Call<&Store::PutMeta>>("putMeta"),
                         InstanceMethod<&StoreWrap::Call<&Store::SetVectorNames>>("setVectorNames"),
                         InstanceMethod<&StoreWrap::Call<&Store::SetFilterIndex>>("setFilterIndex"),
                         InstanceMethod<&StoreWrap::Call<&Store::SetFtsSchema>>("setFtsSchema"),
                         InstanceMethod<&StoreWrap::Call<&Store::Aliases>>("aliases"),
                         InstanceMethod<&StoreWrap::Call<&Store::PutAlias>>("putAlias"),
                         InstanceMethod<&StoreWrap::Call<&Store::DropAlias>>("dropAlias"),
                         InstanceMethod<&StoreWrap::Call<&Store::Upsert>>("upsert"),
                         InstanceMethod<&StoreWrap::Call<&Store::UpsertStamped>>("upsertStamped"),
                         InstanceMethod<&StoreWrap::Call<&Store::Reinforce>>("reinforce"),
                         InstanceMethod<&StoreWrap::Call<&Store::Delete>>("delete"),
                         InstanceMethod<&StoreWrap::Call<&Store::Get>>("get"),
                         InstanceMethod<&StoreWrap::Records>("records"),
                         InstanceMethod<&StoreWrap::RerankWindow>("rerankWindow"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kSearch>>("search"),
                         InstanceMethod<&StoreWrap::SearchVector>("searchVector"),
                         InstanceMethod<&StoreWrap::SearchSync>("searchSync"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kSimilar>>("searchSimilar"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kBatch>>("searchBatch"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kText>>("textSearch"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kHybrid>>("hybridSearch"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kSuggest>>("suggest"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kList>>("list"),
                         InstanceMethod<&StoreWrap::Read<ReadRoute::kAggregate>>("aggregate"),
                         InstanceMethod<&StoreWrap::Call<&Store::Stats>>("stats"),
                         InstanceMethod<&StoreWrap::Call<&Store::Flush>>("flush"),
                         InstanceMethod<&StoreWrap::Call<&Store::Compact>>("compact"),
                         InstanceMethod<&StoreWrap::Call<&Store::SweepExpired>>("sweepExpired"),
                         InstanceMethod<&StoreWrap::Call<&Store::Refresh>>("refresh"),
                         InstanceMethod<&StoreWrap::Call<&Store::Versions>>("versions"),
                         InstanceMethod<&StoreWrap::Call<&Store::Replication>>("replication"),
                         InstanceMethod<&StoreWrap::Call<&Store::BackupPoint>>("backupPoint"),
                         InstanceMethod<&StoreWrap::Call<&Store::BeginBackup>>("beginBackup"),
                         InstanceMethod<&StoreWrap::Call<&Store::EndBackup>>("endBackup"),
                         InstanceMethod<&StoreWrap::Call<&Store::Pin>>("pin"),
                         InstanceMethod<&StoreWrap::Call<&Store::SetResident>>("setResident"),
                         InstanceMethod<&StoreWrap::Call<&Store::Hold>>("hold"),
                         InstanceMethod<&StoreWrap::Call<&Store::Release>>("release"),
                         InstanceMethod<&StoreWrap::Call<&Store::CollectionReads>>("collectionReads"),
                         InstanceMethod<&StoreWrap::Call<&Store::WaitForIndexes>>("waitForIndexes"),
                         InstanceMethod<&StoreWrap::Call<&Store::WaitForIndexBuilds>>("waitForIndexBuilds"),
                         InstanceMethod<&StoreWrap::Close>("close"),
                         InstanceMethod<&StoreWrap::Info>("info"),
                         InstanceMethod<&StoreWrap::Poisoned>("poisoned"),
                         InstanceMethod<&StoreWrap::CommitVersion>("commitVersion"),
                         InstanceMethod<&StoreWrap::Pinned>("pinned"),
                         InstanceMethod<&StoreWrap::WriteRefusal>("writeRefusal"),
                         InstanceMethod<&StoreWrap::Footprint>("footprint"),
                         InstanceMethod<&StoreWrap::InjectWriteFault>("injectWriteFault"),
                         InstanceMethod<&StoreWrap::InjectCompactionFault>("injectCompactionFault"),
                     });
}

namespace {

// "ef_construction" -> "efConstruction": the library spells the core's settings in camelCase.
std::string CamelCase(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) out += name[i] == '_' && i + 1 < name.size() ? char(std::toupper(name[++i])) : name[i];
  return out;
}

// A setting's JS value as text for the core, which alone judges it: strings as they are, numbers
// and the other primitives as JS prints them (1.5, 1e+21, NaN, null, true), objects by their kind.
std::string SettingText(const Napi::Value& v) {
  if (v.IsString()) return v.As<Napi::String>().Utf8Value();
  if (v.IsObject() || v.IsSymbol()) return v.IsObject() ? "[object]" : "[symbol]";
  return v.ToString().Utf8Value();
}

// The options object of open() and check(); the distance is parsed on the worker with the rest, so
// a bad one is a 400 like any refused option.
struct OpenArgs {
  tessera::StoreOptions options;
  std::optional<std::string> distance;
  tessera::StoreOptions Resolve() const {
    tessera::StoreOptions out = options;
    if (distance) out.metric = tessera::ParseMetric(*distance);
    return out;
  }
};

OpenArgs ReadOpenArgs(const Napi::CallbackInfo& info, const char* method) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, std::string(method) + "() takes an options object");
  Napi::Object o = info[0].As<Napi::Object>();
  auto has = [&](const char* key, bool (Napi::Value::*is)() const) { return o.Has(key) && (o.Get(key).*is)(); };
  OpenArgs args;
  tessera::StoreOptions& opts = args.options;
  if (has("path", &Napi::Value::IsString)) opts.path = o.Get("path").As<Napi::String>().Utf8Value();
  opts.in_memory = o.Has("inMemory") && o.Get("inMemory").ToBoolean();
  if (has("dimension", &Napi::Value::IsNumber)) opts.dimension = uint32_t(o.Get("dimension").As<Napi::Number>().Int64Value());
  if (has("distance", &Napi::Value::IsString)) args.distance = o.Get("distance").As<Napi::String>().Utf8Value();
  if (has("queryThreads", &Napi::Value::IsNumber)) opts.query_threads = size_t(o.Get("queryThreads").As<Napi::Number>().Int64Value());
  if (has("mmap", &Napi::Value::IsBoolean)) opts.mmap = o.Get("mmap").As<Napi::Boolean>();
  opts.read_only = o.Has("readOnly") && o.Get("readOnly").ToBoolean();
  if (has("historyVersions", &Napi::Value::IsNumber))
    opts.history_versions = uint64_t(o.Get("historyVersions").As<Napi::Number>().Int64Value());
  if (has("atVersion", &Napi::Value::IsNumber)) opts.at_version = uint64_t(o.Get("atVersion").As<Napi::Number>().Int64Value());
  if (has("maxVectorBytes", &Napi::Value::IsNumber))
    opts.max_vector_bytes = uint64_t(o.Get("maxVectorBytes").As<Napi::Number>().Int64Value());
  if (has("mappedVectorBytes", &Napi::Value::IsNumber))
    opts.mapped_vector_bytes = uint64_t(o.Get("mappedVectorBytes").As<Napi::Number>().Int64Value());
  opts.resident = OptionalStrings(env, o.Get("resident"), "resident");
  for (const tessera::IndexSettingInfo& setting : tessera::DescribeIndexSettings()) {
    Napi::Value v = o.Get(CamelCase(setting.name));
    if (!v.IsUndefined()) tessera::SetIndexSetting(opts.index, setting.name, SettingText(v));
  }
  return args;
}

// {kind, <knobs of the kind>} as /stats spells it, or null when off.
template <typename Config>
Napi::Value ConfigObject(Napi::Env env, const std::optional<Config>& config) {
  if (!config) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("kind", tessera::KindName(config->kind));
  for (const auto& [name, value] : tessera::KnobValues(*config)) o.Set(name, double(value));
  return o;
}

}  // namespace

Napi::Value StoreWrap::Open(const Napi::CallbackInfo& info) {
  OpenArgs args = ReadOpenArgs(info, "open");
  auto holder = std::make_shared<std::shared_ptr<Store>>();
  return CoreTask::Run(
      info.Env(),
      [args, holder]() {
        *holder = Store::Open(args.Resolve());
        return std::string();
      },
      [holder](Napi::Env env, std::string&) -> Napi::Value {
        Napi::Object obj = env.GetInstanceData<AddonData>()->store_ctor.New({});
        StoreWrap::Unwrap(obj)->store_ = *holder;
        return obj;
      });
}

Napi::Value StoreWrap::Adopt(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "adopt() takes the number share() answered");
  std::shared_ptr<Store> store = AdoptStore(info[0].As<Napi::Number>().Uint32Value());
  if (!store) throw Napi::Error::New(env, "no open store is shared by that number (closed already?)");
  Napi::Object obj = env.GetInstanceData<AddonData>()->store_ctor.New({});
  StoreWrap::Unwrap(obj)->store_ = std::move(store);
  return obj;
}

Napi::Value StoreWrap::Share(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), double(ShareStore(shared(info.Env()))));
}

Napi::Value StoreWrap::Drop(const Napi::CallbackInfo& info) {
  store_.reset();
  return info.Env().Undefined();
}

Napi::Value StoreWrap::Check(const Napi::CallbackInfo& info) {
  OpenArgs args = ReadOpenArgs(info, "check");
  return CoreTask::Run(
      info.Env(),
      [args]() {
        Store::Check(args.Resolve());
        return std::string();
      },
      [](Napi::Env env, std::string&) -> Napi::Value { return env.Undefined(); });
}

Napi::Value StoreWrap::IndexSettings(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<tessera::IndexSettingInfo> all = tessera::DescribeIndexSettings();
  Napi::Array out = Napi::Array::New(env, all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", all[i].name);
    o.Set("option", CamelCase(all[i].name));
    o.Set("choices", all[i].choices.empty() ? env.Null() : Napi::String::New(env, all[i].choices));
    o.Set("min", double(all[i].min));
    o.Set("max", double(all[i].max));
    o.Set("needs", all[i].needs);
    o.Set("default", all[i].default_text);
    out.Set(uint32_t(i), o);
  }
  return out;
}

tessera::Store& StoreWrap::store(Napi::Env env) {
  if (!store_) throw Napi::Error::New(env, "store is not open");
  return *store_;
}

std::shared_ptr<tessera::Store> StoreWrap::shared(Napi::Env env) {
  store(env);
  return store_;
}

template <auto Method>
Napi::Value StoreWrap::Call(const Napi::CallbackInfo& info) {
  using M = decltype(Method);
  Napi::Env env = info.Env();
  std::shared_ptr<Store> shared_store = shared(env);
  // The work holds the store by pointer: StartCall keeps it alive and drops it on the JS thread.
  Store* s = shared_store.get();
  if constexpr (std::is_same_v<M, std::string (Store::*)()>) {
    return StartCall(env, shared_store, [s] { return ((*s).*Method)(); });
  } else if constexpr (std::is_same_v<M, std::string (Store::*)(const std::string&)>) {
    return StartCall(env, shared_store, [s, name = StringArg(info, 0)] { return ((*s).*Method)(name); });
  } else if constexpr (std::is_same_v<M, std::string (Store::*)(uint64_t)>) {
    if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "expected a version number");
    return StartCall(env, shared_store, [s, v = uint64_t(info[0].As<Napi::Number>().Int64Value())] { return ((*s).*Method)(v); });
  } else if constexpr (std::is_same_v<M, std::string (Store::*)(std::optional<std::vector<std::string>>)>) {
    return StartCall(env, shared_store, [s, names = OptionalStrings(env, info[0], "argument 0")] { return ((*s).*Method)(names); });
  } else if constexpr (std::is_same_v<M, std::string (Store::*)(std::vector<std::string>)>) {
    std::optional<std::vector<std::string>> names = OptionalStrings(env, info[0], "argument 0");
    if (!names) throw Napi::TypeError::New(env, "argument 0 must be an array of strings");
    return StartCall(env, shared_store, [s, names = std::move(*names)] { return ((*s).*Method)(names); });
  } else if constexpr (std::is_same_v<M, std::string (Store::*)(const std::string&, std::string_view)>) {
    std::string name = StringArg(info, 0);
    HeldBytes body = HoldBytes(info, 1);
    return StartCall(
        env, shared_store, [s, name = std::move(name), body = body.bytes] { return ((*s).*Method)(name, body); }, body);
  } else {
    static_assert(std::is_same_v<M, std::string (Store::*)(std::string_view)>);
    HeldBytes body = HoldBytes(info, 0);
    return StartCall(
        env, shared_store, [s, body = body.bytes] { return ((*s).*Method)(body); }, body);
  }
}

template <ReadRoute Route>
Napi::Value StoreWrap::Read(const Napi::CallbackInfo& info) {
  return StartRead(info, shared(info.Env()), Route, 0, {}, TokenArg(info, 1));
}

Napi::Value StoreWrap::SearchVector(const Napi::CallbackInfo& info) {
  return StartRead(info, shared(info.Env()), ReadRoute::kSearch, 0, FloatsArg(info, 1), TokenArg(info, 2));
}

Napi::Value StoreWrap::SearchSync(const Napi::CallbackInfo& info) {
  std::vector<float> query = info.Length() > 1 && !info[1].IsUndefined() ? FloatsArg(info, 1) : std::vector<float>();
  bool arrays = info.Length() > 2 && info[2].ToBoolean();
  return RunSyncRead(info, store(info.Env()), ReadRoute::kSearch, 0, std::move(query), arrays);
}

Napi::Value StoreWrap::Records(const Napi::CallbackInfo& info) {
  auto s = shared(info.Env());
  auto cursor = std::make_shared<std::unique_ptr<tessera::RecordsCursor>>();
  return CoreTask::Run(
      info.Env(),
      [s, cursor, name = StringArg(info, 0)] {
        *cursor = s->OpenRecords(name);
        return std::string();
      },
      [s, cursor](Napi::Env env, std::string&) -> Napi::Value {
        Napi::Object obj = env.GetInstanceData<AddonData>()->cursor_ctor.New({});
        RecordsCursorWrap::Unwrap(obj)->Attach(s, std::move(*cursor));
        return obj;
      });
}

Napi::Value StoreWrap::RerankWindow(const Napi::CallbackInfo& info) {
  auto s = shared(info.Env());
  std::string route = StringArg(info, 0);
  ReadRoute read = route == "search" ? ReadRoute::kSearch : route == "textSearch" ? ReadRoute::kText : ReadRoute::kHybrid;
  if (route != "search" && route != "textSearch" && route != "hybridSearch")
    throw Napi::TypeError::New(info.Env(), "rerankWindow's route must be search, textSearch or hybridSearch");
  auto window = std::make_shared<std::unique_ptr<tessera::RerankWindow>>();
  return CoreTask::Run(
      info.Env(),
      [s, window, read, body = std::string(BytesView(info, 1)), token = TokenArg(info, 2)] {
        *window = s->Rerank(read, body, *token);
        return std::string();
      },
      [s, window](Napi::Env env, std::string&) -> Napi::Value {
        Napi::Object obj = env.GetInstanceData<AddonData>()->rerank_window_ctor.New({});
        RerankWindowWrap::Unwrap(obj)->Attach(s, std::move(*window));
        return obj;
      });
}

Napi::Value StoreWrap::Close(const Napi::CallbackInfo& info) {
  auto s = shared(info.Env());
  return CoreTask::Run(info.Env(), [s] {
    ForgetStore(s.get());
    s->Close();
    return std::string();
  });
}

Napi::Value StoreWrap::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  tessera::Store& s = store(env);
  Napi::Object o = Napi::Object::New(env);
  o.Set("role", tessera::RoleName(s.role()));
  o.Set("writerHolder", s.writer_holder().empty() ? env.Null() : Napi::String::New(env, s.writer_holder()));
  o.Set("dimension", s.dimension());
  o.Set("distance", tessera::MetricName(s.metric()));
  o.Set("queryThreads", double(s.query_threads()));
  o.Set("mmap", s.mmap());
  o.Set("ann", ConfigObject(env, s.ann()));
  o.Set("quantization", ConfigObject(env, s.quantization()));
  return o;
}

Napi::Value StoreWrap::Poisoned(const Napi::CallbackInfo& info) {
  std::string p = store(info.Env()).poisoned();
  return p.empty() ? info.Env().Null() : Napi::String::New(info.Env(), p);
}

Napi::Value StoreWrap::CommitVersion(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), double(store(info.Env()).commit_version()));
}

Napi::Value StoreWrap::Pinned(const Napi::CallbackInfo& info) {
  std::optional<uint64_t> v = store(info.Env()).pinned();
  return v ? Napi::Number::New(info.Env(), double(*v)) : info.Env().Null();
}

Napi::Value StoreWrap::WriteRefusal(const Napi::CallbackInfo& info) {
  const tessera::Store& s = store(info.Env());
  Outcome checked = Outcome::Of([&] {
    s.CheckWritable();
    return std::string();
  });
  return checked.failed ? checked.ErrorValue(info.Env()) : info.Env().Null();
}

Napi::Value StoreWrap::Footprint(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const tessera::FootprintCounters& f = store(env).footprint();
  Napi::Object o = Napi::Object::New(env);
  o.Set("rows", double(f.rows.load()));
  o.Set("dead_rows", double(f.dead_rows.load()));
  o.Set("doc_count", double(f.doc_count.load()));
  o.Set("collections", double(f.collections.load()));
  o.Set("segments", double(f.segments.load()));
  o.Set("index_builds_pending", double(f.index_builds_pending.load()));
  o.Set("compactions", double(f.compactions.load()));
  o.Set("compactions_running", double(f.compactions_running.load()));
  o.Set("compaction_bytes", double(f.compaction_bytes.load()));
  o.Set("graph_rows_reused", double(f.graph_rows_reused.load()));
  o.Set("graph_rows_inserted", double(f.graph_rows_inserted.load()));
  o.Set("derived_mapped", double(f.derived_mapped.load()));
  o.Set("derived_built", double(f.derived_built.load()));
  o.Set("column_segments", double(f.column_segments.load()));
  o.Set("reads_inline", double(f.reads_inline.load()));
  o.Set("reads_queued", double(f.reads_queued.load()));
  return o;
}

Napi::Value StoreWrap::InjectWriteFault(const Napi::CallbackInfo& info) {
  using tessera::WriteFault;
  static const std::pair<const char*, WriteFault> kFaults[] = {
      {"poison-next-write", WriteFault::kFail},
      {"oom-preparing-next-write", WriteFault::kOutOfMemoryValidating},
      {"oom-applying-next-write", WriteFault::kOutOfMemoryApplying},
  };
  std::string kind = StringArg(info, 0);
  for (const auto& [name, fault] : kFaults)
    if (kind == name) {
      store(info.Env()).InjectWriteFault(fault);
      return info.Env().Undefined();
    }
  throw Napi::Error::New(info.Env(), "unknown fault " + kind);
}

Napi::Value StoreWrap::InjectCompactionFault(const Napi::CallbackInfo& info) {
  std::string where = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
  tessera::CompactionFault fault = where == "before-switch" ? tessera::CompactionFault::kBeforeSwitch
                                   : where == "at-switch"   ? tessera::CompactionFault::kAtSwitch
                                   : where == "held"        ? tessera::CompactionFault::kHeld
                                                            : tessera::CompactionFault::kNone;
  store(info.Env()).InjectCompactionFault(fault);
  return info.Env().Undefined();
}

}  // namespace tessera_addon
