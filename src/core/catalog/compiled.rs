//! Reads the catalog's compiled form: the validated [`Catalog`] that
//! `build.rs` writes with its own serde `Serializer` (`build/encode.rs`),
//! decoded here through the types' derived `Deserialize`. The page's Wasm
//! starts from this instead of parsing and cross-checking the CSV tables.
//!
//! The form is text: one token per value, each ended by [`SEP`] (a byte no
//! catalog cell holds; `build.rs` fails on one that does). Numbers are
//! written by Rust's shortest round-trip `Display` and read back by
//! `str::parse`, so every `f64` comes back bit for bit; `bool` is `1`/`0`;
//! `None` is an empty token (`build.rs` refuses a `Some` that writes one);
//! a sequence is its length, then its items; a struct is its fields in
//! declaration order; an enum is its variant's name.

use serde::de::{self, DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};

use super::{Catalog, CatalogError};

/// Ends every token.
pub const SEP: char = '\u{1f}';

/// The catalog from its compiled form.
pub fn decode(text: &str) -> Result<Catalog, CatalogError> {
    let mut d = Reader { rest: text };
    let catalog: Catalog = serde::Deserialize::deserialize(&mut d).map_err(|_| CatalogError::Compiled)?;
    if d.rest.is_empty() {
        Ok(catalog)
    } else {
        Err(CatalogError::Compiled)
    }
}

/// A token that does not read as its type, or the end of the text. It
/// keeps no message: formatting serde's would link its formatters.
#[derive(Debug)]
pub struct Bad;

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("bad compiled catalog")
    }
}

impl std::error::Error for Bad {}

impl de::Error for Bad {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Bad
    }
}

struct Reader<'de> {
    rest: &'de str,
}

impl<'de> Reader<'de> {
    fn token(&mut self) -> Result<&'de str, Bad> {
        let (t, rest) = self.rest.split_once(SEP).ok_or(Bad)?;
        self.rest = rest;
        Ok(t)
    }

    fn parse<T: std::str::FromStr>(&mut self) -> Result<T, Bad> {
        self.token()?.parse().map_err(|_| Bad)
    }
}

/// `n` items or fields in a row.
struct Items<'a, 'de> {
    reader: &'a mut Reader<'de>,
    left: usize,
}

impl<'de> SeqAccess<'de> for Items<'_, 'de> {
    type Error = Bad;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Bad> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Bad;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Bad> {
        Err(Bad)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        match self.token()? {
            "1" => v.visit_bool(true),
            "0" => v.visit_bool(false),
            _ => Err(Bad),
        }
    }

    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_u32(self.parse()?)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_u64(self.parse()?)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_i32(self.parse()?)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_i64(self.parse()?)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_f64(self.parse()?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_borrowed_str(self.token()?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        v.visit_borrowed_str(self.token()?)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        if self.rest.starts_with(SEP) {
            self.token()?;
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bad> {
        let left = self.parse()?;
        v.visit_seq(Items { reader: self, left })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, Bad> {
        v.visit_seq(Items { reader: self, left: len })
    }

    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], v: V) -> Result<V::Value, Bad> {
        v.visit_seq(Items { reader: self, left: fields.len() })
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], v: V) -> Result<V::Value, Bad> {
        let name: de::value::StrDeserializer<'_, Bad> = self.token()?.into_deserializer();
        v.visit_enum(name)
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i128 u8 u16 u128 f32 char bytes byte_buf unit unit_struct newtype_struct tuple_struct map identifier ignored_any
    }
}
