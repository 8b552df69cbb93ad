// FSPolicyYAML — reading YAML into located nodes.
//
// The one reader of policy files' YAML (`FastYAML`): the YAML the format allows
// (docs/policy-format.md, "The YAML the format reads") read in one pass into a
// `FastYAMLDocument` of flat nodes, each with its line and column; the rest (tags, directives,
// a second document, control characters, tabs as indentation, nesting past 1,000 levels, alias
// bombs) refused with a `FastYAML.Refusal` (line, column, code, message, hint). Duplicate keys
// are set aside and listed in the document. `YNode` is the view of one node the loader walks;
// `SWAR` holds the word-at-a-time byte tests the reader, the escaping rule and the JSON writer
// share.
//
// Depends on the core (FSPolicy) alone, for its hash, and not on the loader: the loader
// (FSPolicyFormat) turns a refusal or a duplicate key into a diagnostic.
