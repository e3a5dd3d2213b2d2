package dev.sluice.core.decision;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The receipts a key remembers as given back: a replay is told apart from a first release, the
 * memory stays bounded, and what goes is covered by the floor so that no replay frees twice.
 */
class SpentReceiptsTest {
  private static final long SECOND = 1_000_000_000L;

  /** Windows of a second aligned to the epoch, as a policy of one limit of 1 s has them. */
  private static final LongUnaryOperator WINDOW_OF_A_SECOND =
      admittedAt -> Math.floorDiv(admittedAt, SECOND) * SECOND + SECOND;

  private static final long T0 = 1_767_225_600L * SECOND; // 2026-01-01T00:00:00Z

  @Test
  void spend_thenTheSameReceiptIsSpent_anotherIsNot() {
    long[] spent =
        SpentReceipts.spend(SpentReceipts.EMPTY, T0 + 5, 42, T0 + 10, WINDOW_OF_A_SECOND);

    assertThat(SpentReceipts.spent(spent, T0 + 5, 42)).isTrue();
    assertThat(SpentReceipts.spent(spent, T0 + 5, 43)).as("another number").isFalse();
    assertThat(SpentReceipts.spent(spent, T0 + 6, 42)).as("another instant").isFalse();
    assertThat(SpentReceipts.spent(SpentReceipts.EMPTY, T0 + 5, 42)).isFalse();
    assertThat(SpentReceipts.wellFormed(spent)).isTrue();
  }

  @Test
  void full_theOldestGoes_andTheFloorStillCallsItSpent() {
    long[] spent = SpentReceipts.EMPTY;
    int many = SpentReceipts.MAX_ENTRIES + 10;
    for (int i = 0; i < many; i++) {
      spent = SpentReceipts.spend(spent, T0 + i, i, T0 + many, WINDOW_OF_A_SECOND);
    }

    assertThat(SpentReceipts.size(spent)).isEqualTo(SpentReceipts.MAX_ENTRIES);
    for (int i = 0; i < many; i++) {
      assertThat(SpentReceipts.spent(spent, T0 + i, i)).as("receipt %d", i).isTrue();
    }
    // Never given back, but admitted before the floor: it counts as spent (the strict side).
    assertThat(SpentReceipts.spent(spent, T0 + 3, 1_000)).isTrue();
    assertThat(SpentReceipts.spent(spent, T0 + many, 1_000)).isFalse();
  }

  @Test
  void windowEnded_itsReceiptsGo_underTheFloor_andTheSetNeedsKeepingNoLonger() {
    long[] spent = SpentReceipts.spend(SpentReceipts.EMPTY, T0 + 1, 1, T0 + 2, WINDOW_OF_A_SECOND);
    assertThat(SpentReceipts.untilForgettableNanos(spent, T0 + 2, WINDOW_OF_A_SECOND))
        .isEqualTo(SECOND - 2);

    // The next second: the first receipt's window ended, so it goes when the next is recorded.
    spent = SpentReceipts.spend(spent, T0 + SECOND + 1, 2, T0 + SECOND + 5, WINDOW_OF_A_SECOND);

    assertThat(SpentReceipts.size(spent)).isEqualTo(1);
    assertThat(SpentReceipts.spent(spent, T0 + 1, 1)).as("under the floor").isTrue();
    assertThat(SpentReceipts.spent(spent, T0 + SECOND + 1, 2)).isTrue();
    assertThat(SpentReceipts.untilForgettableNanos(spent, T0 + 2 * SECOND, WINDOW_OF_A_SECOND))
        .isZero();
  }
}
