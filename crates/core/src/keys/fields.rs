//! The field names a serde type accepts, for tests that every accepted key is declared.

use serde::de::{self, Visitor};
use serde::forward_to_deserialize_any;

/// The field names a serde type accepts (its `deserialize_struct` fields), for tests that
/// every accepted key is declared. Empty for a type that is not a plain struct.
pub fn serde_fields<'de, T: serde::Deserialize<'de>>() -> &'static [&'static str] {
    let mut capture = Capture(&[]);
    let _ = T::deserialize(&mut capture);
    capture.0
}

/// A deserializer that only records the fields a struct asks for.
struct Capture(&'static [&'static str]);

impl<'de> de::Deserializer<'de> for &mut Capture {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(de::Error::custom("fields captured"))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
        identifier ignored_any
    }
}
