// Package mlirbc reads MLIR bytecode (format versions 0 through 6) into a
// generic, dialect-agnostic form: string, dialect and op-name tables, lazily
// decodable attribute/type entries, resources, properties and the IR tree of
// ops, regions, blocks and values.
//
// It knows nothing about any dialect: attribute and type payloads are handed
// to the caller as byte ranges (AttrTypes, decoded on demand and memoized
// through DecodeAttr/DecodeType), and op properties as raw blobs
// (Op.PropsReader). Use-list orders are parsed and dropped.
//
// Typical use:
//
//	f, err := mlirbc.Parse(data)        // header and every table
//	ops, err := f.TopLevel(true)        // the IR; isolated regions stay lazy
//	err = ops[0].Load()                 // read one op's regions when needed
//
// With lazy reading (format >= 2), an op whose regions the writer encoded as
// an isolated nested section keeps them unread until Load; since such
// regions number their values from zero, they can be read in any order.
// Load is not safe for concurrent use on the same op. LoadDeep reads a
// region tree whole, and File.Counts tells what it built.
//
// Values are numbered per file: an op's Results and Operands and a block's
// Args are value ids, resolved with File.Value. Ops, values and id lists
// live in an arena the file returns on Release; the ops carry a single
// pointer, so the garbage collector does little work on them.
//
// Errors name the section and the absolute byte offset in the input.
// Malformed input never panics, and counts are checked against the bytes
// left before anything is allocated for them.
package mlirbc
