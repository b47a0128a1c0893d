//! Writing the page's JSON by hand: the server only ever writes objects of
//! strings, numbers and arrays, which does not need a serialisation crate.

/// A JSON string literal for `text`, escaped.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Also keeps `</script>` and line separators out of the page raw.
            character
                if (character as u32) < 0x20
                    || matches!(character, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') =>
            {
                out.push_str(&format!("\\u{:04x}", character as u32));
            }
            character => out.push(character),
        }
    }
    out.push('"');
    out
}

/// A JSON array of already written values.
pub fn array(values: impl IntoIterator<Item = String>) -> String {
    let values: Vec<String> = values.into_iter().collect();
    format!("[{}]", values.join(","))
}

/// A JSON object written field by field.
pub struct Object {
    fields: Vec<String>,
}

impl Object {
    /// An empty object.
    pub fn new() -> Object {
        Object { fields: Vec::new() }
    }

    /// Adds a field whose value is already JSON.
    pub fn raw(&mut self, name: &str, value: &str) {
        self.fields.push(format!("{}:{value}", string(name)));
    }

    /// Adds a string field.
    pub fn text(&mut self, name: &str, value: &str) {
        self.raw(name, &string(value));
    }

    /// The object's text.
    pub fn finish(self) -> String {
        format!("{{{}}}", self.fields.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(
            string("a\"b\\c\n</x>"),
            "\"a\\\"b\\\\c\\n\\u003c/x\\u003e\""
        );
        let mut object = Object::new();
        object.text("name", "Home0");
        object.raw("list", &array(["1".to_string(), "2".to_string()]));
        assert_eq!(object.finish(), "{\"name\":\"Home0\",\"list\":[1,2]}");
    }
}
