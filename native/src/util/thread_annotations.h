// Clang's thread-safety annotations (-Wthread-safety): which mutex guards a member, which a
// function needs held or takes. They state the lock discipline where the compiler checks it (the
// clang syntax check in test/native/thread_safety.test.ts); other compilers see nothing.
#pragma once

#if defined(__clang__)
#define TS_ATTRIBUTE(x) __attribute__((x))
#else
#define TS_ATTRIBUTE(x)
#endif

#define TS_CAPABILITY(name) TS_ATTRIBUTE(capability(name))
#define TS_SCOPED_CAPABILITY TS_ATTRIBUTE(scoped_lockable)
#define TS_GUARDED_BY(mu) TS_ATTRIBUTE(guarded_by(mu))
#define TS_REQUIRES(...) TS_ATTRIBUTE(requires_capability(__VA_ARGS__))
#define TS_EXCLUDES(...) TS_ATTRIBUTE(locks_excluded(__VA_ARGS__))
#define TS_ACQUIRE(...) TS_ATTRIBUTE(acquire_capability(__VA_ARGS__))
#define TS_RELEASE(...) TS_ATTRIBUTE(release_capability(__VA_ARGS__))
#define TS_ASSERT_CAPABILITY(x) TS_ATTRIBUTE(assert_capability(x))
