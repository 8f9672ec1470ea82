//===- import/rocpd/RocpdQuery.h - The columns a table has ------*- C++ -*-===//
//
// rocpd keeps what one row means in several tables: a region's category and
// correlation id are in the rocpd_event row it points at, a sample's thread in
// its rocpd_track row. The importer reads each event table once, with the
// rows it points at joined in (SQLite finds them by their primary key, or
// builds an index for the query when a file lacks one), and selects only
// the columns each table has, so that one reader serves files written with
// more or fewer columns. A column a table lacks reads as NULL, except the
// few without which no row can be used: a table without one of those is an
// error that names the file, the table and the column.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_IMPORT_ROCPD_ROCPDQUERY_H
#define TRACELINT_IMPORT_ROCPD_ROCPDQUERY_H

#include "import/nsys/Sqlite.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tracelint::import::rocpd {

/// A column that a reader uses; select() sets Index.
struct Column {
  enum Presence {
    /// A row can do without it, or some writer leaves it out: reads as NULL.
    Optional,
    /// rocpd schema 3 has it and no row of the table is usable without it.
    Required
  };
  Column(llvm::StringRef Name, Presence P = Optional) : Name(Name), P(P) {}

  llvm::StringRef Name;
  Presence P;
  /// Its index in the statement, or -1 where the table lacks it (the
  /// Statement reads a negative index as NULL).
  int Index = -1;
};

/// A table whose row the read table's rows point at: the row of Table whose
/// column Key equals the read row's column From. Key must be Table's
/// INTEGER PRIMARY KEY (its rowid), as every rocpd id is: one row matches,
/// found without a scan. Otherwise select() fails, naming the table.
struct Join {
  std::string Table;
  llvm::StringRef Key;
  llvm::StringRef From;
  std::vector<Column *> Columns;
};

/// Prepares "SELECT <the columns that exist> FROM Table LEFT JOIN ..." over
/// \p Table (which must exist) and sets each column's Index. A join whose
/// table or key columns are missing is left out: its columns read as NULL,
/// as they do for a row that points at no row.
llvm::Expected<nsys::Statement> select(nsys::Database &Db,
                                       llvm::StringRef Table,
                                       llvm::ArrayRef<Column *> Columns,
                                       llvm::ArrayRef<Join> Joins = {});

} // namespace tracelint::import::rocpd

#endif
