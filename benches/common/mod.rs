//! Helpers shared by the format benchmarks (`mod common;` in each).
#![allow(dead_code)] // each bench uses a different subset

use core::hint::black_box;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};

/// The benchmark group `name` for the file `bytes`, in bytes per second, with its
/// `parse` benchmark run (`parse` parses its argument).
pub fn parse_group<'c>(
    c: &'c mut Criterion,
    name: String,
    bytes: &[u8],
    parse: impl Fn(&[u8]),
) -> BenchmarkGroup<'c, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse", |b| b.iter(|| parse(black_box(bytes))));
    g
}
