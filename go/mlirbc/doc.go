// Package mlirbc reads MLIR bytecode (format versions 0 through 6) into a
// generic, dialect-agnostic form: string, dialect and op-name tables, lazily
// decodable attribute/type entries, resources, properties and the IR tree of
// ops, regions, blocks and values.
//
// It knows nothing about any dialect: attribute and type payloads are handed
// to the caller as byte ranges (see AttrTypes), and op properties as raw
// blobs. Errors name the section and the absolute byte offset in the input.
// Malformed input never panics and never makes the reader allocate more than
// the remaining input can justify.
package mlirbc
