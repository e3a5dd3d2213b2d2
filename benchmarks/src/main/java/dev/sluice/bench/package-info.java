/**
 * What every benchmark main class shares: {@link dev.sluice.bench.Usage}, the {@code --help} that
 * prints its documented command. The benchmarks themselves are in the subpackages: {@code load}
 * (the load and peer comparison behind docs/benchmarks.md), {@code grid}, {@code client}, {@code
 * memory}, {@code accuracy}, {@code rls} and {@code jmh}.
 */
@NullMarked
package dev.sluice.bench;

import org.jspecify.annotations.NullMarked;
