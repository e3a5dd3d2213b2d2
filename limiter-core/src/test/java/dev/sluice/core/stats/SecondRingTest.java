package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecondRingTest {

  @Test
  void read_secondsSkippedAndOutOfRange_readAsZero() {
    SecondRing ring = new SecondRing(1);
    ring.put(1_000, new int[] {5});
    ring.put(1_003, new int[] {7}); // 1,001 and 1,002: no tick

    assertThat(ring.read(0, 1_004, 6)).containsExactly(0, 5, 0, 0, 7, 0);
  }

  @Test
  void put_afterMoreThan900Seconds_forgetsTheOldSeconds() {
    SecondRing ring = new SecondRing(1);
    ring.put(100, new int[] {1});
    ring.put(100 + SecondRing.SECONDS, new int[] {2}); // same slot, 900 s later

    assertThat(ring.read(0, 100 + SecondRing.SECONDS, SecondRing.SECONDS + 1)[0]).isZero();
    assertThat(ring.read(0, 100 + SecondRing.SECONDS, 1)).containsExactly(2);
    assertThat(ring.allZero()).isFalse();
  }

  @Test
  void put_aSecondAlreadyWritten_changesNothing() {
    SecondRing ring = new SecondRing(2);
    ring.put(10, new int[] {1, 2});
    ring.put(10, new int[] {9, 9});
    ring.put(9, new int[] {9, 9});

    assertThat(ring.read(1, 10, 2)).containsExactly(0, 2);
  }
}
