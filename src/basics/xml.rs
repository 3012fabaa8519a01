//! Text for SVG and other XML: the characters XML reads as markup written as entities.

/// `s` as XML text or attribute value: `&`, `<`, `>` and `"` as entities.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
