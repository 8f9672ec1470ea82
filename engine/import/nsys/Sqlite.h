//===- import/nsys/Sqlite.h - Reading an untrusted SQLite file ---*- C++
//-*-===//
//
// A small RAII layer over the SQLite C API for the Nsight Systems importer.
// The file is untrusted: it is opened read-only and immutable (no journal, no
// locks, no writes to its folder), with defensive mode on, untrusted schema
// (no functions or virtual tables run from it), no views, triggers or
// extension loading, and a busy timeout. Every failure becomes an llvm::Error
// that names the file, the table being read and what SQLite reported;
// corruption is called corruption.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_NSYS_SQLITE_H
#define TRACELINT_IMPORT_NSYS_SQLITE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tracelint::import::nsys {

class Database;

/// One prepared statement. step() returns true while there is a row; after it
/// returns false, error() says whether the scan ended cleanly.
class Statement {
public:
  Statement() = default;
  Statement(Statement &&O) noexcept;
  Statement &operator=(Statement &&O) noexcept;
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;
  ~Statement();

  bool step();
  /// The error that ended the last step(), or success.
  llvm::Error error();
  void reset();
  void bindInt(int Index, int64_t V);

  // A negative column index stands for a column the table lacks: it reads
  // as NULL, so that an optional column needs no test of its own.

  /// What a column holds, for a column that should hold an integer: a text
  /// or real value there means a damaged or hostile file.
  enum class Kind { Integer, Null, Other };
  /// Column \p Col; \p Out is set when it holds an integer. One call into
  /// SQLite per column: this is the importer's inner loop.
  Kind integer(int Col, int64_t &Out) const {
    if (Col < 0)
      return Kind::Null;
    // sqlite3_column_value takes the statement's lock once; the value calls
    // on its result take none.
    sqlite3_value *V = sqlite3_column_value(S, Col);
    switch (sqlite3_value_type(V)) {
    case SQLITE_INTEGER:
      Out = sqlite3_value_int64(V);
      return Kind::Integer;
    case SQLITE_NULL:
      return Kind::Null;
    default:
      return Kind::Other;
    }
  }
  bool isNull(int Col) const;
  /// Text of the column (empty for NULL); valid until the next step().
  llvm::StringRef text(int Col) const;
  int columnCount() const;
  /// The name of result column \p Col (its AS name, or the table's name
  /// for a plain column reference).
  llvm::StringRef columnName(int Col) const;

private:
  friend class Database;
  Statement(Database *Db, sqlite3_stmt *S, std::string Table)
      : Db(Db), S(S), Table(std::move(Table)) {}
  Database *Db = nullptr;
  sqlite3_stmt *S = nullptr;
  std::string Table;
  int LastRc = 0;
};

class Database {
public:
  /// Opens \p Path read-only with the defensive settings above. A file that
  /// SQLite cannot read at all is reported here.
  static llvm::Expected<Database> open(llvm::StringRef Path);
  /// Opens the database image \p Bytes (read-only; it must outlive the
  /// Database) under the same restrictions; \p Name is used in messages.
  static llvm::Expected<Database> openImage(llvm::StringRef Name,
                                            llvm::StringRef Bytes);

  Database(Database &&O) noexcept;
  Database &operator=(Database &&O) noexcept;
  Database(const Database &) = delete;
  Database &operator=(const Database &) = delete;
  ~Database();

  /// Compiles \p Sql, which reads \p Table (named in error messages).
  llvm::Expected<Statement> prepare(llvm::StringRef Sql, llvm::StringRef Table);

  /// Every ordinary table of the file (from sqlite_master; views and
  /// virtual tables do not count).
  const llvm::StringSet<> &tables() const { return Tables; }
  bool hasTable(llvm::StringRef Name) const { return Tables.count(Name); }
  /// The columns of \p Table (PRAGMA table_info); empty if it has none.
  llvm::Expected<llvm::StringSet<>> columns(llvm::StringRef Table);
  /// Upper bound on the number of rows of \p Table (its largest rowid), for
  /// reserving memory; 0 when unknown. Costs one b-tree descent.
  uint64_t rowEstimate(llvm::StringRef Table);

  const std::string &path() const { return Path; }
  /// An error about \p Table that names the file.
  llvm::Error fail(llvm::StringRef Table, const llvm::Twine &What) const;
  /// The error for SQLite result code \p Rc while reading \p Table.
  llvm::Error sqliteError(int Rc, llvm::StringRef Table) const;

private:
  Database(sqlite3 *Db, std::string Path) : Db(Db), Path(std::move(Path)) {}
  llvm::Error loadTables();
  llvm::Error restrict();

  sqlite3 *Db = nullptr;
  std::string Path;
  llvm::StringSet<> Tables;
};

/// "file:" URI for \p Path with immutable=1; the path is percent-encoded so
/// that '?', '#' and '%' in names are read as part of the name.
std::string immutableUri(llvm::StringRef Path);

/// Quotes an SQL identifier ("name", doubling inner quotes).
std::string quoteIdentifier(llvm::StringRef Name);

} // namespace tracelint::import::nsys

#endif
