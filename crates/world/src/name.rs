//! Names of placed objects, kept without an allocation each where a loader numbers them: a MAVS
//! scene names a million placements of one mesh file `<stem>_<n>`, and a name of its own each
//! (an `Arc<str>` of some 25 bytes) cost about 48 bytes of heap a placement.
//!
//! Invariant: a name is its text. Two names are equal when their texts are, however each is
//! kept (`Whole("tuft_3")` equals `Numbered("tuft", 3)`), and both print and serialize as text.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// An object's name: its text, or a stem shared by many and a number (`<stem>_<number>`).
#[derive(Clone)]
pub enum Name {
    /// The text itself.
    Whole(Arc<str>),
    /// `<stem>_<number>`, the stem shared by every name made from it.
    Numbered(Arc<str>, u32),
}

impl Name {
    /// `<stem>_<number>`.
    pub fn numbered(stem: &Arc<str>, number: u32) -> Name {
        Name::Numbered(stem.clone(), number)
    }

    /// The text, borrowed where it is kept whole.
    pub fn to_str(&self) -> Cow<'_, str> {
        match self {
            Name::Whole(text) => Cow::Borrowed(text),
            Name::Numbered(..) => Cow::Owned(self.to_string()),
        }
    }

    /// Whether the text is `text`, without writing out a numbered name.
    pub fn is(&self, text: &str) -> bool {
        match self {
            Name::Whole(whole) => **whole == *text,
            Name::Numbered(stem, number) => text
                .strip_prefix(&**stem)
                .and_then(|rest| rest.strip_prefix('_'))
                .is_some_and(|digits| digits_are(digits, *number)),
        }
    }

    /// Whether `self` and `other` are the same name, without writing either out.
    fn same_text(&self, other: &Name) -> bool {
        match (self, other) {
            (Name::Whole(a), Name::Whole(b)) => a == b,
            // The text's last `_` comes just before the number (whose digits have none), so
            // two numbered names spell one text only with the same stem and number.
            (Name::Numbered(a, m), Name::Numbered(b, n)) => m == n && a == b,
            (Name::Whole(text), numbered) | (numbered, Name::Whole(text)) => numbered.is(text),
        }
    }
}

/// Whether `digits` is `number` as `Display` writes it (no sign, no leading zeros).
fn digits_are(digits: &str, number: u32) -> bool {
    let mut buffer = [0u8; 10];
    let mut at = buffer.len();
    let mut n = number;
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    digits.as_bytes() == &buffer[at..]
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Whole(text) => f.write_str(text),
            Name::Numbered(stem, number) => write!(f, "{stem}_{number}"),
        }
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.to_str(), f)
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.same_text(other)
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.is(other)
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.is(other)
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::Whole(text.into())
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::Whole(text.into())
    }
}

impl From<Arc<str>> for Name {
    fn from(text: Arc<str>) -> Name {
        Name::Whole(text)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Name::Whole(text) => serializer.serialize_str(text),
            numbered => serializer.collect_str(numbered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Name;
    use std::sync::Arc;

    /// A numbered name is its text: it prints, compares and serializes as the whole one.
    #[test]
    fn a_numbered_name_is_its_text() {
        let stem: Arc<str> = "oat_grass".into();
        let numbered = Name::numbered(&stem, 1207);
        assert_eq!(numbered.to_string(), "oat_grass_1207");
        assert_eq!(numbered, Name::from("oat_grass_1207"));
        assert_eq!(Name::from("oat_grass_1207"), numbered);
        assert!(numbered.is("oat_grass_1207"));
        for other in [
            "oat_grass_127",
            "oat_grass_01207",
            "oat_grass1207",
            "oat_grass_",
            "x",
        ] {
            assert!(!numbered.is(other), "{other}");
            assert_ne!(numbered, Name::from(other));
        }
        assert!(Name::numbered(&stem, 0).is("oat_grass_0"));
        assert!(Name::numbered(&stem, u32::MAX).is("oat_grass_4294967295"));
        assert_eq!(Name::numbered(&"a_1".into(), 2), Name::from("a_1_2"));
        assert_ne!(
            Name::numbered(&"a_1".into(), 2),
            Name::numbered(&"a".into(), 12)
        );
        assert_ne!(
            Name::numbered(&"a".into(), 2),
            Name::numbered(&"a".into(), 3)
        );
        assert_eq!(
            serde_json::to_string(&[numbered, Name::from("ground")]).unwrap(),
            r#"["oat_grass_1207","ground"]"#
        );
        assert_eq!(
            format!("{:?}", Name::numbered(&stem, 3)),
            r#""oat_grass_3""#
        );
    }
}
