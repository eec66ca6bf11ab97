//! Writes a value in the catalog's compiled form, the text that
//! `src/core/catalog/compiled.rs` reads back (its module comment states the
//! form): a serde `Serializer` over the types' derived `Serialize`, so the
//! fields come out in the order their `Deserialize` reads them.
use std::fmt::{self, Display};

use serde::ser::{self, Impossible, Serialize};

/// Ends every token (`compiled::SEP`).
const SEP: char = '\u{1f}';

/// Why a value cannot be written.
#[derive(Debug)]
pub struct Error(pub String);

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// `value` in the compiled form.
pub fn to_text<T: Serialize>(value: &T) -> Result<String, Error> {
    let mut w = Writer { out: String::new() };
    value.serialize(&mut w)?;
    Ok(w.out)
}

struct Writer {
    out: String,
}

impl Writer {
    fn token(&mut self, t: &str) -> Result<(), Error> {
        if t.contains(SEP) {
            return Err(Error(format!("the catalog text `{t}` holds the separator U+001F")));
        }
        self.out.push_str(t);
        self.out.push(SEP);
        Ok(())
    }

    fn unsupported(what: &str) -> Error {
        Error(format!("the compiled catalog form has no {what}"))
    }
}

type Res = Result<(), Error>;

/// Integers are written as their decimal text.
macro_rules! ints {
    ($($name:ident: $t:ty),*) => {
        $(fn $name(self, v: $t) -> Res {
            self.token(&v.to_string())
        })*
    };
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = &'a mut Writer;
    type SerializeTuple = &'a mut Writer;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = &'a mut Writer;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Res {
        self.token(if v { "1" } else { "0" })
    }
    ints! { serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64 }
    fn serialize_f32(self, _: f32) -> Res {
        Err(Writer::unsupported("f32"))
    }
    /// Rust's shortest text that parses back to the same bits.
    fn serialize_f64(self, v: f64) -> Res {
        if !v.is_finite() {
            return Err(Error(format!("{v} is not a finite number")));
        }
        self.token(&v.to_string())
    }
    fn serialize_char(self, v: char) -> Res {
        self.token(&v.to_string())
    }
    fn serialize_str(self, v: &str) -> Res {
        self.token(v)
    }
    fn serialize_bytes(self, _: &[u8]) -> Res {
        Err(Writer::unsupported("bytes"))
    }
    /// An empty token.
    fn serialize_none(self) -> Res {
        self.token("")
    }
    /// The value, whose first token must not be empty (that reads as `None`).
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Res {
        let at = self.out.len();
        value.serialize(&mut *self)?;
        if self.out.get(at..).is_some_and(|t| t.starts_with(SEP)) {
            return Err(Error("an empty text in an optional field would read back as none".into()));
        }
        Ok(())
    }
    fn serialize_unit(self) -> Res {
        Err(Writer::unsupported("unit"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Res {
        Err(Writer::unsupported("unit struct"))
    }
    /// The variant's name.
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Res {
        self.token(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Res {
        Err(Writer::unsupported("newtype struct"))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Res {
        Err(Writer::unsupported("newtype variant"))
    }
    /// The length, then the items.
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, Error> {
        let len = len.ok_or_else(|| Writer::unsupported("sequence of unknown length"))?;
        self.token(&len.to_string())?;
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(Writer::unsupported("tuple struct"))
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Writer::unsupported("tuple variant"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(Writer::unsupported("map"))
    }
    /// The fields in order, without names.
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, Error> {
        Err(Writer::unsupported("struct variant"))
    }
}

impl ser::SerializeSeq for &mut Writer {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Res {
        value.serialize(&mut **self)
    }
    fn end(self) -> Res {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut Writer {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Res {
        value.serialize(&mut **self)
    }
    fn end(self) -> Res {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Writer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, _: &'static str, value: &T) -> Res {
        value.serialize(&mut **self)
    }
    /// A skipped field would shift every later one: refused.
    fn skip_field(&mut self, key: &'static str) -> Res {
        Err(Error(format!("field `{key}` is skipped in serialization; the compiled form needs every field")))
    }
    fn end(self) -> Res {
        Ok(())
    }
}
