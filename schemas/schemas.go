// Package schemas embeds lf's JSON Schema files (and the OpenAPI document)
// so that validation never reads or fetches anything at run time.
package schemas

import "embed"

// FS holds every *.json file of this folder.
//
//go:embed *.json
var FS embed.FS
