// Package htmltok implements an HTML tokenizer over a page held in
// memory: the tokens of golang.org/x/net/html's Tokenizer (the same
// types, the same boundaries, names, attributes and text, byte for
// byte), found without its per-byte reads and copies.
//
// x/net/html's Tokenizer reads its input through an io.Reader one byte
// at a time (a function call and a bounds check per byte), copies and
// lower-cases every tag name and attribute key, and builds a map of the
// keys of every tag to drop repeated ones. This one takes the whole page
// as a []byte, finds the next '<' (and a comment's or raw text's end)
// with bytes.IndexByte, keeps names, keys and values as spans of the
// input, and changes bytes only when asked for them and only when they
// change (an upper-case letter, a character reference, a CR or a NUL);
// otherwise the slices it returns are the input itself.
//
// # What it follows
//
// The token stream is x/net/html's, not the WHATWG tokenizer's where the
// two differ, because it replaces x/net/html under code whose results
// (links, SimHash fingerprints stored with every URL) must not change.
// Its functions keep the structure of x/net/html's (readTag, readComment,
// readScript, readRawOrRCDATA, ...), so the two read side by side. What
// it does, as x/net/html does:
//
//   - start and end tags, names lower-cased ASCII only, a NUL as U+FFFD;
//     attributes unquoted, single- or double-quoted, or without a value,
//     an '=' as the first character of a key being part of it, the first
//     of repeated keys (ASCII case-insensitively) kept; an end tag's
//     attributes read and dropped; a tag cut by the end of the input is
//     no token (the tokens end);
//   - self-closing: a '/' just before the '>' that does not end the last
//     kept attribute's unquoted value (<p a=/> is not self-closing);
//   - comments: <!-- ... -->, --!> too, <!--> and <!---> empty, a comment
//     cut by the end losing its last dashes; bogus comments <?...>,
//     </ ...> (an end tag not starting with a letter), <!...>; </> as an
//     empty comment; no CDATA sections (they are bogus comments);
//   - <!DOCTYPE ...> in any case;
//   - raw text after the start tags (self-closing too) of script (with
//     the escaping rules of <!-- and <script> inside it), style, xmp,
//     iframe, noembed, noframes, noscript; RCDATA after title and
//     textarea; plaintext to the end. NextIsNotRawText reads the next
//     content as markup instead;
//   - text: CR LF and CR as LF; NUL as U+FFFD in raw text, RCDATA and
//     comments only; character references decoded in text, RCDATA,
//     comments, doctypes and attribute values (there as an attribute
//     value's: "&amp=" and "&notin" without the semicolon stay as they
//     are), the standard's named references looked up through x/net/html's
//     exported tokenizer once per distinct name (named.go: its table is
//     unexported, and is not copied here).
//
// SetMaxToken is x/net/html's SetMaxBuf for a page in memory: a text or
// raw-text token that reaches the limit, counting the bytes x/net/html
// reads ahead to find its end, is cut there and is the last; a longer tag
// ends the tokens. One departure: a comment or doctype that reaches it is
// not handed out cut, as x/net/html does (and after a "<!DOCTYPE" cut by
// the limit x/net/html reads on past it); the tokens end there.
//
// FuzzTokenizerMatchesXNet holds the token streams of the two to each
// other (types, names, attributes, text, raw bytes) on any input, seeded
// with edge cases, the repository's HTML, fakeweb's pages (its hostile
// web's tag soup and legacy charsets included), the html5lib encoding
// tests' documents and a sample of the Python documentation;
// TestPythonDocsMatchXNet compares all 530 of its pages when
// python3.11-doc is installed, TestEntitiesAreXNet every named character
// reference, and FuzzMaxTokenMatchesXNet the limit.
//
// A Tokenizer is not safe for concurrent use; it never modifies its
// input.
package htmltok
