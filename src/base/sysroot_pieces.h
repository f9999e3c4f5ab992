// The doors of SysRoot for files too large to hold whole: the durable write of a file made while
// it is written (the journal of a large system, 10.6 MB on bench/'s large tree), and the read of
// a file a line at a time (/proc/interrupts of a large server, 11.8 MB on the same tree).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// Takes one piece of a file's contents.
using PutPiece = std::function<void(std::string_view piece)>;
/// Makes a file's contents: calls put() with each piece, in order. Each piece is one write(2),
/// so a maker gives pieces of some KiB.
using Pieces = std::function<void(const PutPiece& put)>;

/// WriteFileAtomic with the contents made in pieces, each written as it is made: the same
/// temporary file, fsync, rename (the commit point) and fsync of the directory. After a piece
/// fails to be written the rest are skipped and the temporary file removed, never renamed.
Result<void> WriteFileAtomicFrom(const std::string& path, const Pieces& pieces);

/// root.WriteDurable(path, contents) with the contents made in pieces. An FsRoot (every root
/// rtagent opens: OpenRoot) writes them as they are made; any other root (a test double that
/// counts writes, injects faults or refuses paths) is given the contents whole through its own
/// WriteDurable, so it sees exactly what it saw before.
Result<void> WriteDurableFrom(SysRoot& root, const std::string& path, const Pieces& pieces);

/// Takes one line of a file, without its '\n'.
using TakeLine = std::function<void(std::string_view line)>;

/// root.Read(path) handed to `take` a line at a time, as SplitLines would cut the text (a last
/// line without '\n' is a line; a final '\n' ends the last one). An FsRoot reads the file in
/// 64 KiB pieces and never holds more than a piece and one line; any other root (a test
/// double) is read whole through its own Read. On an error (the file cannot be opened or a
/// read fails part-way) the lines already taken are the file's first lines and the error is
/// returned: the caller discards what it made of them.
Result<void> ReadLinesFrom(const SysRoot& root, const std::string& path, const TakeLine& take);

/// What a file shows next, from what it shows now; an error leaves the file as it is.
using EditText = std::function<Result<std::string>(const std::string& now)>;

/// root.Read(path), edit, then root.Write(path, edited): the fixture's stand-ins for kernel calls
/// that change what a file under proc/ shows (the twin's sched_setattr rewrites a thread's stat
/// line). On an FsRoot over a fixture tree one open serves the read and the write, as FsRoot's
/// own Write does (the large tree's apply rewrites 14,000 stat lines); any other root (a test
/// double) has its own Read and Write called. The read's error (ENOENT for a missing file) and
/// the edit's are returned as they are, nothing written.
Result<void> EditFixtureFile(SysRoot& root, const std::string& path, const EditText& edit);

}  // namespace rtagent
