// Making trace text safe inside an HTML page. Kernel names are whatever the traced program
// called its kernels (`</script><script>alert(1)</script>` included), so every name passes
// through one of these for the context it lands in, and never into an id, class, CSS or URL.
#pragma once

#include <string>
#include <string_view>

namespace stepstat::html {

/// Valid, printable UTF-8: each maximal invalid subsequence (as json_writer.h and Python
/// read it), C0 controls other than tab and newline, DEL and C1 controls (U+0080..U+009F)
/// become U+FFFD.
std::string SanitizeUtf8(std::string_view text);

/// For element text and double-quoted attribute values: SanitizeUtf8, then `&`, `<`, `>`,
/// `"` and `'` as character references. The one escape both contexts accept.
std::string EscapeHtml(std::string_view text);

/// JSON text (as json_writer.h writes it: ASCII only) for a
/// `<script type="application/json">` element: `<`, `>` and `&` as \u003c, \u003e, \u0026.
/// They occur only inside JSON strings, so the value is unchanged, and neither `</script`
/// nor `<!--` can end or bend the element.
std::string JsonForScriptElement(std::string_view json);

}  // namespace stepstat::html
