// Crash points for crash-safety tests: CrashPoint(name) kills the process on the spot, as kill -9
// would, when the environment variable TESSERA_CRASH_AT names that point ("name", or "name@N" for
// its Nth hit in the process); otherwise it does nothing. Tests use it to stop a process exactly between two durable steps (say, after a
// compaction's manifest and before its old files are removed), which a timed kill cannot aim at.
#pragma once

namespace tessera {

void CrashPoint(const char* name);

}  // namespace tessera
