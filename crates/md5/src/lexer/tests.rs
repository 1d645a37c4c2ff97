//! One test per idLexer rule (docs/formats.md §4.1; §7 items 12–13).

extern crate alloc;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::*;

fn p(src: &str) -> Parser<'_> {
    Parser::new(src.as_bytes(), false, CommentRule::Engine)
}

/// The texts of all tokens (panics on a lexer error).
fn texts(src: &str, concat: bool, rule: CommentRule) -> Vec<alloc::string::String> {
    Lexer::new(src.as_bytes(), concat, rule)
        .map(|t| t.unwrap().text.to_string())
        .collect()
}

fn kinds(src: &str) -> Vec<TokenKind> {
    Lexer::new(src.as_bytes(), false, CommentRule::Engine)
        .map(|t| t.unwrap().kind)
        .collect()
}

/// The next `N` tokens read as integers (panics on an error).
fn ints<const N: usize>(q: &mut Parser<'_>) -> [i32; N] {
    core::array::from_fn(|_| q.parse_int().unwrap())
}

fn err_kind(r: Result<impl core::fmt::Debug>) -> Md5ErrorKind {
    r.unwrap_err().kind()
}

#[test]
fn leading_zero_is_octal() {
    assert_eq!(p("010").parse_int().unwrap(), 8);
    assert_eq!(p("0").parse_int().unwrap(), 0);
    assert_eq!(p("0777").parse_float().unwrap(), 511.0);
    assert_eq!(kinds("010"), [TokenKind::Integer(Base::Octal)]);
}

#[test]
fn zero_eight_is_two_tokens() {
    assert_eq!(texts("08", false, CommentRule::Engine), ["0", "8"]);
    let mut q = p("08");
    assert_eq!(ints(&mut q), [0, 8]);
}

#[test]
fn hex_and_binary() {
    assert_eq!(p("0x1F").parse_int().unwrap(), 31);
    assert_eq!(p("0Xff").parse_int().unwrap(), 255);
    assert_eq!(p("0b101").parse_int().unwrap(), 5);
    assert_eq!(p("0x").parse_int().unwrap(), 0);
}

#[test]
fn uppercase_exponent_is_refused() {
    // `1E-5` is the integer 1, the name `E`, then `-5`: a vector of one float fails at `E`.
    assert_eq!(
        texts("1E-5", false, CommentRule::Engine),
        ["1", "E", "-", "5"]
    );
    let e = p("( 1E-5 )").parse_vec::<1>().unwrap_err();
    match e.kind() {
        Md5ErrorKind::Unexpected { expected, found } => {
            assert_eq!(expected, Expected::Keyword(")"));
            assert_eq!(found.bytes(), b"E");
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(e.column(), 4);
}

#[test]
fn lowercase_exponent_is_a_float() {
    assert_eq!(p("1e-05").parse_float().unwrap(), 1e-5);
    assert_eq!(p("2.5e3").parse_float().unwrap(), 2500.0);
    assert_eq!(p("2.5e+3").parse_float().unwrap(), 2500.0);
    assert_eq!(kinds("1e5"), [TokenKind::Float]);
    // An exponent without digits multiplies by 10⁰.
    assert_eq!(p("7e").parse_float().unwrap(), 7.0);
    // A huge exponent gives infinity, not a hang.
    assert_eq!(p("1e999999999").parse_float().unwrap(), f32::INFINITY);
}

#[test]
fn minus_may_stand_apart() {
    assert_eq!(p("- 5").parse_float().unwrap(), -5.0);
    assert_eq!(p("- 5").parse_int().unwrap(), -5);
    assert_eq!(p("-\n// c\n5").parse_int().unwrap(), -5);
    assert_eq!(p("-5").parse_int().unwrap(), -5);
}

#[test]
fn plus_is_refused() {
    let k = err_kind(p("+1").parse_float());
    assert!(
        matches!(k, Md5ErrorKind::Unexpected { expected: Expected::Float, found } if found.bytes() == b"+"),
        "{k:?}"
    );
    assert!(p("+1").parse_int().is_err());
}

#[test]
fn double_minus_is_one_token() {
    assert_eq!(texts("--1", false, CommentRule::Engine), ["--", "1"]);
    assert!(p("--1").parse_float().is_err());
    assert!(p("-=1").parse_float().is_err());
}

#[test]
fn leading_dot_numbers() {
    assert_eq!(p(".5").parse_float().unwrap(), 0.5);
    assert_eq!(p("-.5").parse_float().unwrap(), -0.5);
    assert_eq!(p("5.").parse_float().unwrap(), 5.0);
}

#[test]
fn minus_zero_is_negative_zero() {
    let v = p("-0").parse_float().unwrap();
    assert_eq!(v.to_bits(), (-0.0f32).to_bits());
    let v = p("- 0.0").parse_float().unwrap();
    assert!(v == 0.0 && v.is_sign_negative());
}

#[test]
fn float_truncated_where_integer_expected() {
    let mut q = p("3.9 24.0 2.99999999");
    // The third: rounded to f32 (3.0) before truncation (docs/formats.md §4.1).
    assert_eq!(ints(&mut q), [3, 24, 3]);
    assert_eq!(q.notes().float_as_int.count, 3);
    assert_eq!(q.notes().float_as_int.first, Some(0));
}

#[test]
fn negative_float_where_integer_expected_is_refused() {
    let k = err_kind(p("-1.0").parse_int());
    assert!(matches!(
        k,
        Md5ErrorKind::Unexpected {
            expected: Expected::IntegerAfterMinus,
            ..
        }
    ));
}

#[test]
fn integers_wrap_at_32_bits() {
    assert_eq!(p("4294967296").parse_float().unwrap(), 0.0);
    assert_eq!(p("4294967297").parse_int().unwrap(), 1);
    assert_eq!(p("4294967295").parse_int().unwrap(), -1);
    assert_eq!(p("-2147483648").parse_int().unwrap(), i32::MIN);
    // As a float with a dot the digits accumulate in f64 and do not wrap.
    assert_eq!(p("4294967296.0").parse_float().unwrap(), 4294967296.0);
}

#[test]
fn float_exceptions_are_refused() {
    for s in ["1.#INF", "1.#IND", "1.#QNAN", "-1.#SNAN", "1.#X"] {
        assert_eq!(
            err_kind(p(s).parse_float()),
            Md5ErrorKind::FloatException,
            "{s}"
        );
    }
}

#[test]
fn two_dots_are_refused() {
    assert_eq!(
        err_kind(p("1.2.3").parse_float()),
        Md5ErrorKind::MoreThanOneDot
    );
}

#[test]
fn suffixes_are_dropped() {
    let mut q = p("1.5f 2u 3ul 0x10L 2.5L");
    assert_eq!(q.parse_float().unwrap(), 1.5);
    assert_eq!(ints(&mut q), [2, 3, 16]);
    assert_eq!(q.parse_float().unwrap(), 2.5);
    assert!(q.lexer_mut().next_token().unwrap().is_none());
}

#[test]
fn commas_are_refused() {
    let e = p("( 1, 2, 3 )").parse_vec::<3>().unwrap_err();
    assert!(
        matches!(e.kind(), Md5ErrorKind::Unexpected { expected: Expected::Float, found } if found.bytes() == b","),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "expected a number but found ',' (line 1, column 4)"
    );
}

#[test]
fn concatenated_strings_in_md5mesh_only() {
    let src = "\"ab\" \"cd\" /* x */ \"ef\" 5";
    let mesh = texts(src, true, CommentRule::Strict);
    assert_eq!(mesh, ["abcdef", "5"]);
    let anim = texts(src, false, CommentRule::Strict);
    assert_eq!(anim, ["ab", "cd", "ef", "5"]);
    // The joined token compares and displays as one text.
    let mut l = Lexer::new(b"\"mes\"  \"h\"", true, CommentRule::Engine);
    let t = l.next_token().unwrap().unwrap();
    assert!(t.text.is_concatenated());
    assert_eq!(t.text, "mesh");
    assert_eq!(t.text.len(), 4);
    assert_eq!(t.text.chunks().count(), 2);
}

#[test]
fn comment_between_joined_strings_swallows_a_quote() {
    // Engine rule: `*/"` swallows the opening quote of "b", so nothing is joined and
    // the next token is the name `b` followed by an unterminated string.
    let mut l = Lexer::new(b"\"a\" /* x */\"b\"\n", true, CommentRule::Engine);
    assert_eq!(l.next_token().unwrap().unwrap().text, "a");
    assert_eq!(l.next_token().unwrap().unwrap().text, "b");
    assert_eq!(
        l.next_token().unwrap_err().kind(),
        Md5ErrorKind::NewlineInString
    );
}

#[test]
fn block_comment_swallows_next_character() {
    assert_eq!(
        texts("1 /* c */2 3", false, CommentRule::Engine),
        ["1", "3"]
    );
    assert_eq!(
        texts("1 /* c */2 3", false, CommentRule::Strict),
        ["1", "2", "3"]
    );
    assert_eq!(p("-/*c*/2.5").parse_float().unwrap(), -0.5);
    let mut l = Lexer::new(b"1 /* c */2 3", false, CommentRule::Engine);
    while l.next_token().unwrap().is_some() {}
    assert_eq!(l.notes().swallowed.count, 1);
    assert_eq!(l.notes().swallowed.first, Some(9));
    // A swallowed space is harmless and not tallied.
    let mut l = Lexer::new(b"1 /* c */ 2", false, CommentRule::Engine);
    while l.next_token().unwrap().is_some() {}
    assert!(l.notes().swallowed.is_empty());
}

#[test]
fn slash_star_slash_is_a_whole_comment() {
    assert_eq!(
        texts("1 /*/ 2 3", false, CommentRule::Strict),
        ["1", "2", "3"]
    );
}

#[test]
fn line_comments() {
    assert_eq!(
        texts("a // b c\nd//e\n", false, CommentRule::Engine),
        ["a", "d//e"]
    );
    assert_eq!(texts("a // no newline", false, CommentRule::Engine), ["a"]);
}

#[test]
fn nested_comment_warning() {
    let mut l = Lexer::new(b"1 /* a /* b */ 2", false, CommentRule::Strict);
    let all: Vec<_> = l.by_ref().map(|t| t.unwrap().text.to_string()).collect();
    assert_eq!(all, ["1", "2"]);
    assert_eq!(l.notes().nested_comments.count, 1);
    assert_eq!(l.notes().nested_comments.first, Some(7));
}

#[test]
fn unterminated_block_comment_ends_the_text() {
    assert_eq!(texts("1 /* 2 3", false, CommentRule::Engine), ["1"]);
}

#[test]
fn backslash_is_literal_in_strings() {
    let mut l = Lexer::new(b"\"a\\\" b", false, CommentRule::Engine);
    let t = l.next_token().unwrap().unwrap();
    assert_eq!(t.kind, TokenKind::String);
    assert_eq!(t.text, "a\\");
    assert_eq!(l.next_token().unwrap().unwrap().text, "b");
}

#[test]
fn newline_inside_string() {
    let e = Lexer::new(b"x \"ab\ncd\"", false, CommentRule::Engine)
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), Md5ErrorKind::NewlineInString);
    assert_eq!((e.line(), e.column()), (1, 6));
}

#[test]
fn missing_trailing_quote() {
    let e = Lexer::new(b"\"abc", false, CommentRule::Engine)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), Md5ErrorKind::MissingTrailingQuote);
}

#[test]
fn literal_strings_warn_unless_one_character() {
    let mut l = Lexer::new(b"'a' 'bc'", false, CommentRule::Engine);
    assert_eq!(l.next_token().unwrap().unwrap().kind, TokenKind::Literal);
    l.next_token().unwrap();
    assert_eq!(l.notes().long_literals.count, 1);
    assert_eq!(l.notes().long_literals.first, Some(4));
}

#[test]
fn names_with_path_characters() {
    assert_eq!(
        texts(
            "models/a.tga textures\\b:c .x _y a-b",
            false,
            CommentRule::Engine
        ),
        ["models/a.tga", "textures\\b:c", ".x", "_y", "a", "-", "b"]
    );
    assert_eq!(kinds(".x .5"), [TokenKind::Name, TokenKind::Float]);
}

#[test]
fn high_bytes_are_whitespace() {
    assert_eq!(
        texts("a\u{e9}b \"\u{e9}\"", false, CommentRule::Engine),
        ["a", "b", "\u{e9}"]
    );
}

#[test]
fn nul_ends_the_text() {
    let mut l = Lexer::new(b"1 2\x003 4", false, CommentRule::Engine);
    assert_eq!(l.by_ref().count(), 2);
    assert_eq!(l.notes().nul.first, Some(3));
}

#[test]
fn unknown_punctuation() {
    let e = Lexer::new(b"  @", false, CommentRule::Engine)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), Md5ErrorKind::UnknownPunctuation(b'@'));
    assert_eq!(e.column(), 3);
    assert!(
        Lexer::new(b"\x7f", false, CommentRule::Engine)
            .next()
            .unwrap()
            .is_err()
    );
}

#[test]
fn keywords_are_case_sensitive_and_any_kind() {
    assert!(p("numJoints").expect("numJoints").is_ok());
    assert!(p("numjoints").expect("numJoints").is_err());
    // ExpectTokenString compares text only: a quoted brace matches.
    assert!(p("\"{\"").expect("{").is_ok());
    let mut q = p("name x");
    assert!(!q.check("shader").unwrap());
    assert!(q.check("name").unwrap());
}

#[test]
fn expected_end_of_file() {
    let e = p("  ").parse_float().unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a number but found the end of the file (line 1, column 3)"
    );
}

#[test]
fn number_values_are_doom_accumulations() {
    // Values that need the fraction loop; these agree with correct rounding (§4.1).
    for s in [
        "0.1",
        "0.7071067691",
        "-0.4998047054",
        "31.9803333282",
        "1e-05",
        "123456.789",
    ] {
        let mine = p(s).parse_float().unwrap();
        let std: f32 = s.parse().unwrap();
        assert_eq!(mine.to_bits(), std.to_bits(), "{s}");
    }
    // The accumulation itself, digit by digit: 0.3 = 0*10 + 3*0.1 in f64.
    let t = Lexer::new(b"0.3", false, CommentRule::Engine)
        .next_token()
        .unwrap()
        .unwrap();
    assert_eq!(t.double_value(), 3.0 * 0.1);
}

mod fast_paths {
    //! The parser's fast paths (numbers and keywords read without building a token)
    //! agree with the token-based slow paths on every input: value or error, position
    //! and notes.
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code

    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = alloc::vec::Vec<u8>> {
        proptest::collection::vec(
            proptest::sample::select(alloc::vec![
                b'0', b'1', b'7', b'8', b'9', b'.', b'e', b'E', b'-', b'+', b'x', b'#', b'/', b'*',
                b' ', b'\n', b'"', b'(', b')', b'{', b'v', b'_', b'=', b'>', 0xe9, 0,
            ]),
            0..24,
        )
    }

    fn same<T: PartialEq + core::fmt::Debug>(
        a: &Result<T>,
        b: &Result<T>,
        pa: &Parser<'_>,
        pb: &Parser<'_>,
    ) -> bool {
        let values = match (a, b) {
            (Ok(x), Ok(y)) => x == y,
            (Err(x), Err(y)) => x == y,
            _ => false,
        };
        // After an error the position does not matter (parsing stops).
        values && (a.is_err() || (pa.pos() == pb.pos() && pa.notes() == pb.notes()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn parse_float_fast_equals_slow(t in text(), comments in any::<bool>()) {
            let rule = if comments { CommentRule::Engine } else { CommentRule::Strict };
            let mut a = Parser::new(&t, false, rule);
            let mut b = Parser::new(&t, false, rule);
            let (x, y) = (a.parse_float(), b.parse_float_slow());
            let x = x.map(f32::to_bits);
            let y = y.map(f32::to_bits);
            prop_assert!(same(&x, &y, &a, &b), "{:?}: {:?} vs {:?}", t, x, y);
        }

        #[test]
        fn parse_int_fast_equals_slow(t in text()) {
            let mut a = Parser::new(&t, false, CommentRule::Engine);
            let mut b = Parser::new(&t, false, CommentRule::Engine);
            let (x, y) = (a.parse_int_at(), b.parse_int_slow());
            prop_assert!(same(&x, &y, &a, &b), "{:?}: {:?} vs {:?}", t, x, y);
        }

        #[test]
        fn expect_fast_equals_token_compare(t in text(), kw in proptest::sample::select(alloc::vec!["(", ")", "{", "vert", "v", "e"])) {
            let mut a = Parser::new(&t, true, CommentRule::Engine);
            let x = a.expect(kw);
            // Reference: read one token and compare its text.
            let mut b = Parser::new(&t, true, CommentRule::Engine);
            let y = b.read(Expected::Keyword(kw)).and_then(|tok| {
                if tok.text.eq_bytes(kw.as_bytes()) { Ok(tok.offset) } else { Err(b.unexpected(Expected::Keyword(kw), &tok)) }
            });
            prop_assert!(same(&x, &y, &a, &b), "{:?} {}: {:?} vs {:?}", t, kw, x, y);
        }

        #[test]
        fn parse_vec_fast_equals_token_by_token(t in vec_text(), comments in any::<bool>()) {
            let rule = if comments { CommentRule::Engine } else { CommentRule::Strict };
            let mut a = Parser::new(&t, false, rule);
            let mut b = Parser::new(&t, false, rule);
            let x = a.parse_vec::<3>().map(|v| v.map(f32::to_bits));
            // Reference: `(`, three slow-path floats, `)`, as Doom's Parse1DMatrix.
            let y = b.expect_token("(").and_then(|_| {
                let v = [b.parse_float_slow()?, b.parse_float_slow()?, b.parse_float_slow()?];
                b.expect_token(")")?;
                Ok(v.map(f32::to_bits))
            });
            prop_assert!(same(&x, &y, &a, &b), "{:?}: {:?} vs {:?}", t, x, y);
        }

        #[test]
        fn parse_floats_equals_one_at_a_time(t in vec_text(), n in 0u32..6) {
            let mut a = Parser::new(&t, false, CommentRule::Engine);
            let mut b = Parser::new(&t, false, CommentRule::Engine);
            let mut got = alloc::vec::Vec::new();
            let x = a.parse_floats(n, |v| got.push(v.to_bits())).map(|()| got);
            let y = (0..n).map(|_| b.parse_float_slow().map(f32::to_bits)).collect::<Result<alloc::vec::Vec<u32>>>();
            prop_assert!(same(&x, &y, &a, &b), "{:?} ×{}: {:?} vs {:?}", t, n, x, y);
        }
    }

    /// Text shaped like md5 vectors and frame rows (`( a b c )`, each piece after a
    /// separator), where any piece may be one of the rarer things: comments, `-` apart
    /// from its number, NUL, high bytes, other punctuation and number shapes.
    fn vec_text() -> impl Strategy<Value = alloc::vec::Vec<u8>> {
        let odd = || {
            proptest::sample::select(alloc::vec![
                "",
                "(",
                ")",
                "-",
                "- ",
                ".5",
                "1e3",
                "/* c */",
                "// c\n",
                "010",
                "0x1",
                "1.#INF",
                "\0",
                "\u{e9}",
                "x",
                "--",
                "123456789012345678901",
                "0.1234567890123456789",
                "1.5f",
                "5.",
                "1.2.3",
                "{",
            ])
        };
        let num = || {
            prop_oneof![
                4 => proptest::sample::select(alloc::vec!["0", "1.5", "-0.707107", "31.228901", "-12", "0.000000"]),
                1 => odd(),
            ]
        };
        let sep = || {
            prop_oneof![
                4 => proptest::sample::select(alloc::vec![" ", "\t", "\n ", "", "  "]),
                1 => odd(),
            ]
        };
        let bracket = |b: &'static str| prop_oneof![6 => Just(b), 1 => odd()];
        (
            bracket("("),
            proptest::collection::vec((sep(), num()), 4),
            sep(),
            bracket(")"),
            proptest::collection::vec(odd(), 0..3),
        )
            .prop_map(|(open, items, last, close, tail)| {
                let mut t = alloc::string::String::from(open);
                for (s, n) in items {
                    t.push_str(s);
                    t.push_str(n);
                }
                t.push_str(last);
                t.push_str(close);
                t.push_str(&tail.concat());
                t.into_bytes()
            })
    }
}

mod fast_numbers {
    //! [`fast_number`] against the exact path (`read_number_raw`, Doom's `f64`
    //! accumulation): same `f32` bits, same integer, same kind, same end, whenever the
    //! fast path answers; and the parser's results are unchanged around it.
    #![allow(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::as_conversions
    )] // test code

    use super::*;
    use alloc::format;
    use alloc::string::String;
    use proptest::prelude::*;

    /// Checks the fast path at offset 0 of `t` against the exact one; returns whether the
    /// fast path answered.
    fn agree(t: &[u8]) -> bool {
        let Some(f) = fast_number(t, 0) else {
            return false;
        };
        let mut lex = Lexer::new(t, false, CommentRule::Engine);
        let n = lex.read_number_raw(0).unwrap();
        assert_eq!(
            f.value.to_bits(),
            f64_to_f32(n.value).to_bits(),
            "{:?}",
            String::from_utf8_lossy(t)
        );
        assert_eq!(f.int, n.int, "{:?}", String::from_utf8_lossy(t));
        assert_eq!(f.float, n.kind == TokenKind::Float);
        assert_eq!(f.end, lex.pos(), "{:?}", String::from_utf8_lossy(t));
        true
    }

    fn digits(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(b"0123456789".to_vec()), 0..=max)
            .prop_map(|v| String::from_utf8(v).unwrap())
    }

    /// Decimal-looking text: integer digits, an optional dot and fraction (up to 24
    /// digits, past the fast path's 19), an optional exponent or suffix, then a tail.
    fn number() -> impl Strategy<Value = String> {
        (
            digits(12),
            proptest::option::of(digits(24)),
            proptest::sample::select(alloc::vec![
                "", "", "", "e5", "e-3", "e+2", "f", "u", "L", "E5", ".", ".5", "#INF", "x",
            ]),
            proptest::sample::select(alloc::vec![" ", "\n", ")", "", "/* c */1", "-2"]),
        )
            .prop_map(|(i, f, e, tail)| match f {
                Some(f) => format!("{i}.{f}{e}{tail}"),
                None => format!("{i}{e}{tail}"),
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20000))]

        #[test]
        fn fast_number_equals_doom_accumulation(t in number()) {
            let b = t.as_bytes();
            if b.first().is_some_and(u8::is_ascii_digit)
                || (b.first() == Some(&b'.') && b.get(1).is_some_and(u8::is_ascii_digit))
            {
                agree(b);
            }
        }

        /// `fast_int` answers only for plain decimal integers, as the exact path reads
        /// them (value, end), and never for a float or anything with a suffix.
        #[test]
        fn fast_int_equals_the_exact_path(t in number()) {
            let b = t.as_bytes();
            if let Some((v, end)) = fast_int(b, 0) {
                let mut lex = Lexer::new(b, false, CommentRule::Engine);
                let n = lex.read_number_raw(0).unwrap();
                prop_assert!(matches!(n.kind, TokenKind::Integer(_)), "{:?}", t);
                prop_assert_eq!(v, n.int, "{:?}", t);
                prop_assert_eq!(end, lex.pos(), "{:?}", t);
            }
        }

        #[test]
        fn printed_floats_agree(bits in 0u32..0x7f80_0000, prec in 0usize..=17) {
            let x = f32::from_bits(bits); // every finite non-negative f32
            agree(format!("{x:.prec$} ").as_bytes());
        }

        /// The adversarial case: decimal text close to the midpoint between two
        /// neighbouring f32s, where f64 rounding differences would show.
        #[test]
        fn near_midpoints_agree(bits in 0x3000_0000u32..0x4f00_0000, prec in 6usize..=14, nudge in -3i64..=3) {
            let lo = f64::from(f32::from_bits(bits));
            let hi = f64::from(f32::from_bits(bits + 1));
            let mid = f64::from_bits(((lo + hi) / 2.0).to_bits().wrapping_add_signed(nudge));
            agree(format!("{mid:.prec$} ").as_bytes());
        }

        #[test]
        fn parser_unchanged_on_numbers(
            t in number(),
            sep in proptest::sample::select(alloc::vec!["", " ", "- ", "-", "- /* c */", "-/*c*/ ", "-//c\n", "--", "-\t\n"]),
        ) {
            let src = format!("{sep}{t}");
            let b = src.as_bytes();
            let (mut x, mut y) = (
                Parser::new(b, false, CommentRule::Engine),
                Parser::new(b, false, CommentRule::Engine),
            );
            let (fx, fy) = (x.parse_float().map(f32::to_bits), y.parse_float_slow().map(f32::to_bits));
            prop_assert_eq!(&fx, &fy, "{:?}", src);
            if fx.is_ok() {
                prop_assert_eq!(x.pos(), y.pos());
                prop_assert_eq!(x.notes(), y.notes());
            }
            let (mut x, mut y) = (
                Parser::new(b, false, CommentRule::Engine),
                Parser::new(b, false, CommentRule::Engine),
            );
            let (ix, iy) = (x.parse_int_at(), y.parse_int_slow());
            prop_assert_eq!(&ix, &iy, "{:?}", src);
            if ix.is_ok() {
                prop_assert_eq!(x.pos(), y.pos());
                prop_assert_eq!(x.notes(), y.notes());
            }
        }
    }

    #[test]
    fn fast_int_shapes() {
        for (t, v) in [
            ("0 ", 0),
            ("0", 0),
            ("7)", 7),
            ("123456789 ", 123_456_789),
            ("42\n", 42),
        ] {
            assert_eq!(fast_int(t.as_bytes(), 0).map(|(v, _)| v), Some(v), "{t}");
        }
        // Ten digits, octal, floats, suffixes, hex and binary are left to the other paths.
        for t in [
            "1234567890",
            "010",
            "0.5",
            "1.",
            "1e5",
            "1u",
            "0x1",
            "0b1",
            "1#",
            "x",
        ] {
            assert!(fast_int(t.as_bytes(), 0).is_none(), "{t}");
        }
    }

    #[test]
    fn fast_path_shapes() {
        for t in [
            "0 ",
            "0",
            "0)",
            "1",
            "12345",
            "0.5",
            ".5",
            "5.",
            "0.000000",
            "-0",
            "4294967296",
            "4294967297 ",
            "123456789012345678",
            "0.707107",
            "31.228901",
            "12.128036",
            "9999999999.99999999",
        ] {
            let b = t.as_bytes();
            if b[0] != b'-' {
                assert!(agree(b), "{t} should take the fast path");
            }
        }
        // Left to the exact path: octal, hex, binary, suffixes, exponents, 19 and 20
        // digits, a second dot, `#INF`.
        for t in [
            "010",
            "08",
            "0x1F",
            "0b1",
            "0u",
            "1u",
            "1.5f",
            "1e5",
            "1.5e-3",
            "12345678901234567890",
            "1234567890123456789",
            "9999999999.999999999",
            "1.2.3",
            "1.#INF",
            "0.1234567890123456789",
        ] {
            assert!(fast_number(t.as_bytes(), 0).is_none(), "{t}");
        }
    }

    /// Every f32 printed as the exporters print it (`%f`, six decimals) in a wide range:
    /// the fast path agrees, and falls back rarely.
    #[test]
    fn six_decimals_sweep() {
        let (mut fast, mut total) = (0u32, 0u32);
        let mut bits = 0x3000_0000u32; // about 4.7e-10
        while bits < 0x4f00_0000 {
            // about 2.1e9
            let x = f32::from_bits(bits);
            for s in [format!("{x:.6}"), format!("{x:.9}"), format!("{x}")] {
                total += 1;
                if agree(s.as_bytes()) {
                    fast += 1;
                }
            }
            bits += 9973;
        }
        assert!(
            fast >= total - total / 100,
            "{fast} of {total} took the fast path"
        );
    }
}
