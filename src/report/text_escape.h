// Making names from traces safe to print. Kernel names are whatever the traced program
// called its kernels: they can carry terminal escape sequences, HTML or invalid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace stepstat {

/// For terminals and plain text: C0 controls, DEL and bytes that are not valid UTF-8
/// become `\xNN`, C1 controls (U+0080..U+009F, which some terminals obey) become `\u00NN`,
/// and a backslash stays a backslash. Valid printable UTF-8 passes through.
std::string EscapeForTerminal(std::string_view text);

/// For Markdown table cells: EscapeForTerminal, then `&`, `<`, `>` as HTML entities and
/// `\`, `` ` ``, `|`, `*`, `_`, `[`, `]`, `~` backslash-escaped, so a name renders as text.
std::string EscapeForMarkdown(std::string_view text);

/// Display width in columns (code points; the escapes above are plain ASCII).
size_t DisplayWidth(std::string_view text);

/// Shortens `text` (already escaped) to at most `width` columns, ending in `ellipsis`
/// when cut; never splits a UTF-8 sequence.
std::string TruncateToWidth(std::string_view text, size_t width, std::string_view ellipsis);

/// Shortens `text` (already escaped) to at most `width` columns by replacing its middle with
/// `ellipsis`: kernel names differ at both ends (namespace first, template arguments last).
std::string ElideMiddle(std::string_view text, size_t width, std::string_view ellipsis);

}  // namespace stepstat
