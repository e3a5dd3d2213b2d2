package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.test.Seeds;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class NanoMathTest {

  @Test
  void mulDiv_agreesWithBigInteger_onBothSidesOf64Bits() {
    Seeds.run(
        "mulDiv",
        20,
        seed -> {
          Random random = new Random(seed);
          for (int i = 0; i < 2_000; i++) {
            long a = (random.nextLong() >>> 1) >>> random.nextInt(63);
            long b = (random.nextLong() >>> 1) >>> random.nextInt(63);
            long c = Math.max(1, (random.nextLong() >>> 1) >>> random.nextInt(63));
            BigInteger product = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b));
            BigInteger floor = product.divide(BigInteger.valueOf(c));
            BigInteger ceil =
                new BigDecimal(product)
                    .divide(new BigDecimal(c), 0, RoundingMode.CEILING)
                    .toBigInteger();
            assertThat(NanoMath.mulDivFloor(a, b, c)).isEqualTo(saturate(floor));
            assertThat(NanoMath.mulDivCeil(a, b, c)).isEqualTo(saturate(ceil));
          }
        });
  }

  private static long saturate(BigInteger value) {
    return value.bitLength() < 64 ? value.longValue() : Long.MAX_VALUE;
  }

  @Test
  void saturatingOperations_stopAtTheEdgesInsteadOfWrapping() {
    assertThat(NanoMath.saturatedAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(NanoMath.saturatedAdd(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
    assertThat(NanoMath.saturatedAdd(5, -7)).isEqualTo(-2);
    assertThat(NanoMath.saturatedSubtract(Long.MIN_VALUE, 1)).isEqualTo(Long.MIN_VALUE);
    assertThat(NanoMath.saturatedSubtract(Long.MAX_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
    assertThat(NanoMath.saturatedSubtract(0, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(NanoMath.saturatedSubtract(-1, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(NanoMath.saturatedSubtract(7, 9)).isEqualTo(-2);
    assertThat(NanoMath.saturatedMultiply(1L << 32, 1L << 31)).isEqualTo(Long.MAX_VALUE);
    assertThat(NanoMath.saturatedMultiply(3_000_000_000L, 3)).isEqualTo(9_000_000_000L);
  }

  @Test
  void windowStart_alignsToTheEpoch_alsoBeforeIt() {
    assertThat(NanoMath.windowStart(12_345, 1_000)).isEqualTo(12_000);
    assertThat(NanoMath.windowStart(12_000, 1_000)).isEqualTo(12_000);
    assertThat(NanoMath.windowStart(-1, 1_000)).isEqualTo(-1_000);
  }

  @Test
  void ceilDiv_roundsUp() {
    assertThat(NanoMath.ceilDiv(0, 7)).isZero();
    assertThat(NanoMath.ceilDiv(7, 7)).isEqualTo(1);
    assertThat(NanoMath.ceilDiv(8, 7)).isEqualTo(2);
  }
}
