// What can be said about a store directory before anything is created, locked or read: that it is
// a directory whose store files this process may read (and, to write, change), or that it can be
// created. Store::Check runs it so a front end refuses a bad --data before it starts serving.
#pragma once
#include <string>

namespace tessera {

// Throws Error(400) naming the path and the problem: a path that is a file (or under one), a
// directory or store file this process may not read, or, when write is set, a directory it may not
// change, a log or lock it may not write, or a missing directory with no writable ancestor.
void CheckStoreDirectory(const std::string& dir, bool write);

}  // namespace tessera
