//! One name table per enum: the `named!` macro declares an enum together
//! with the lowercase names it has in links, JSON, the CLI report and the
//! page's selects, so each name is spelled once. It never holds labels
//! shown to people (those are messages, by key).

/// Declares `pub enum Name { Variant = "name", … }` with `NAMES` (name,
/// value pairs in display order), `ALL`, `as_str`, `parse` and a
/// `Serialize` that writes the name.
macro_rules! named {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value with its name, in the order selects list them.
            pub const NAMES: &'static [(&'static str, $name)] = &[$(($text, $name::$variant)),+];
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            pub fn parse(s: &str) -> Option<$name> {
                Self::NAMES.iter().find(|(n, _)| *n == s).map(|(_, v)| *v)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use named;
