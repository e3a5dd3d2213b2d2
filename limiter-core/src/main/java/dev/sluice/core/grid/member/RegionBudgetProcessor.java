package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.WireEnums;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.region.RegionBudget;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One step on a key's regional budget ({@link RegionBudget}), on the key's owner in the region, in
 * one atomic entry processor: spend from it (or say how long until its paced permits answer, or
 * deny from home's last denial), deposit a grant from home, remember home's denial, sweep it, or
 * take it all back. It only decodes, calls the budget's pure code, stores and hands the budget to
 * the backup.
 *
 * <p>The budget's instants are the owning member's {@code System.nanoTime()}: a grant's end is read
 * on the member that asked home for it, and a budget that finds itself on another member (its
 * partition moved, a backup was promoted) answers nothing from the grants it carried and gives them
 * back ({@link RegionBudget#prune}).
 *
 * <p>The backup never re-runs the step: {@link Backup} stores the budget the owner computed.
 */
public final class RegionBudgetProcessor
    implements EntryProcessor<String, long[], RegionBudgetProcessor.Result>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware {

  /** Entries live this long after their last write: longer than any grant a window leaves. */
  static final long TTL_MILLIS = TimeUnit.HOURS.toMillis(2);

  /** The step to run; on the wire by its code, so that reordering the steps changes no byte. */
  enum Kind {
    SPEND(1),
    DEPOSIT(2),
    SWEEP(3),
    TAKE_ALL(4),
    REFILL_FAILED(5),
    DENIED(6);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    int code() {
      return code;
    }
  }

  /**
   * Home's denial of a check, for {@link RegionBudget#denied}.
   *
   * @param sentAtNanos when the check's ask left, on the clock of the member that asked
   */
  public record Denial(long sentAtNanos, long retryAfterNanos, long resetAfterNanos) {}

  private Kind kind;
  private long permits;
  private int shape;
  private long roundTripNanos;
  private long holderMost;
  private long holderLeast;
  private RegionBudget.@Nullable Grant grant;
  private @Nullable Denial denial;
  private transient @Nullable UUID local;
  private transient long @Nullable [] written;
  private transient boolean removed;

  /** For deserialization. */
  public RegionBudgetProcessor() {
    this.kind = Kind.SWEEP;
  }

  private RegionBudgetProcessor(
      Kind kind,
      long permits,
      int shape,
      long roundTripNanos,
      @Nullable UUID holder,
      RegionBudget.@Nullable Grant grant,
      @Nullable Denial denial) {
    this.kind = kind;
    this.permits = permits;
    this.shape = shape;
    this.roundTripNanos = roundTripNanos;
    this.holderMost = holder == null ? 0 : holder.getMostSignificantBits();
    this.holderLeast = holder == null ? 0 : holder.getLeastSignificantBits();
    this.grant = grant;
    this.denial = denial;
  }

  /** Answers a request of {@code permits} from the budget, if it holds them. */
  public static RegionBudgetProcessor spend(long permits, int shape, long roundTripNanos) {
    return new RegionBudgetProcessor(Kind.SPEND, permits, shape, roundTripNanos, null, null, null);
  }

  /** Stores a grant that {@code asker} asked home for. */
  public static RegionBudgetProcessor deposit(UUID asker, RegionBudget.Grant grant) {
    return new RegionBudgetProcessor(Kind.DEPOSIT, 0, grant.shape(), 0, asker, grant, null);
  }

  /** Drops ended grants, takes idle or foreign ones out to give back, forgets an idle budget. */
  public static RegionBudgetProcessor sweep(UUID local) {
    return new RegionBudgetProcessor(Kind.SWEEP, 0, 0, 0, local, null, null);
  }

  /** Takes every grant out, to give back (the member is leaving its region). */
  public static RegionBudgetProcessor takeAll() {
    return new RegionBudgetProcessor(Kind.TAKE_ALL, 0, 0, 0, null, null, null);
  }

  /** A refill that failed: another may be asked for at once. */
  public static RegionBudgetProcessor refillFailed() {
    return new RegionBudgetProcessor(Kind.REFILL_FAILED, 0, 0, 0, null, null, null);
  }

  /** Remembers home's denial of {@code permits}, asked by {@code asker}. */
  public static RegionBudgetProcessor denied(UUID asker, long permits, Denial denial) {
    return new RegionBudgetProcessor(Kind.DENIED, permits, 0, 0, asker, null, denial);
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.local = hazelcastInstance.getCluster().getLocalMember().getUuid();
  }

  @Override
  public Result process(Map.Entry<String, long[]> entry) {
    long nowNanos = System.nanoTime();
    long[] stored = entry.getValue();
    RegionBudget budget = RegionBudget.of(stored);
    UUID here = local == null ? new UUID(0, 0) : local;
    long most = here.getMostSignificantBits();
    long least = here.getLeastSignificantBits();
    List<RegionBudget.Grant> giveBack = new ArrayList<>(0);
    boolean answered = false;
    long usableInNanos = 0;
    long deniedForNanos = 0;
    long refillAsk = 0;
    switch (kind) {
      case SPEND -> {
        giveBack.addAll(budget.prune(most, least, nowNanos, shape));
        answered = budget.take(permits, nowNanos);
        if (!answered) {
          usableInNanos = budget.usableInNanos(permits, nowNanos);
        }
        if (!answered && usableInNanos == 0) {
          deniedForNanos = budget.deniedFor(permits, nowNanos);
        }
        if (budget.askRefill(nowNanos, roundTripNanos)) {
          refillAsk = budget.refillAsk(roundTripNanos);
        }
      }
      case DEPOSIT -> {
        if (holderMost != most || holderLeast != least) {
          // Asked by a member that no longer owns the key: its end was read on that clock.
          giveBack.add(grant);
        } else {
          giveBack.addAll(budget.prune(most, least, nowNanos, shape));
          giveBack.addAll(budget.deposit(grant, nowNanos));
        }
      }
      case SWEEP -> {
        if (!budget.heldBy(most, least)) {
          giveBack.addAll(budget.takeAll());
        } else {
          budget.dropEnded(nowNanos);
          if (budget.idle(nowNanos)) {
            giveBack.addAll(budget.takeAll());
          }
        }
      }
      case TAKE_ALL -> giveBack.addAll(budget.takeAll());
      case REFILL_FAILED -> budget.refillFailed();
      case DENIED -> {
        // Only on the member that asked and holds the budget: the end is read on its clock.
        if (denial != null
            && holderMost == most
            && holderLeast == least
            && budget.heldBy(most, least)) {
          budget.denied(
              permits, denial.sentAtNanos(), denial.retryAfterNanos(), denial.resetAfterNanos());
        }
      }
    }
    if (kind == Kind.SWEEP && budget.forgettable(nowNanos)) {
      if (stored != null) {
        entry.setValue(null);
        removed = true;
      }
    } else {
      written = budget.values();
      ((ExtendedMapEntry<String, long[]>) entry)
          .setValue(written, TTL_MILLIS, TimeUnit.MILLISECONDS);
    }
    return new Result(
        answered,
        usableInNanos,
        deniedForNanos,
        deniedForNanos > 0 ? budget.deniedResetAfter(nowNanos) : 0,
        budget.held(),
        refillAsk,
        Math.max(budget.refillAsk(roundTripNanos), permits),
        giveBack);
  }

  @Override
  public @Nullable EntryProcessor<String, long[], Result> getBackupProcessor() {
    if (written == null && !removed) {
      return null;
    }
    return new Backup(written);
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.REGION_BUDGET;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(kind.code);
    out.writeLong(permits);
    out.writeInt(shape);
    out.writeLong(roundTripNanos);
    out.writeLong(holderMost);
    out.writeLong(holderLeast);
    out.writeBoolean(grant != null);
    if (grant != null) {
      writeGrant(out, grant);
    }
    out.writeBoolean(denial != null);
    if (denial != null) {
      out.writeLong(denial.sentAtNanos());
      out.writeLong(denial.retryAfterNanos());
      out.writeLong(denial.resetAfterNanos());
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int code = in.readByte();
    try {
      kind = WireEnums.ofCode(Kind.values(), Kind::code, code, "region budget step");
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
    permits = in.readLong();
    shape = in.readInt();
    roundTripNanos = in.readLong();
    holderMost = in.readLong();
    holderLeast = in.readLong();
    grant = in.readBoolean() ? readGrant(in) : null;
    denial = in.readBoolean() ? new Denial(in.readLong(), in.readLong(), in.readLong()) : null;
  }

  private static void writeGrant(ObjectDataOutput out, RegionBudget.Grant grant)
      throws IOException {
    out.writeLong(grant.permits());
    out.writeLong(grant.endsAtNanos());
    out.writeLong(grant.grantedAtHomeNanos());
    out.writeLong(grant.leaseNanos());
    out.writeInt(grant.shape());
    out.writeLong(grant.usableFromNanos());
    out.writeLong(grant.spacingNanos());
  }

  private static RegionBudget.Grant readGrant(ObjectDataInput in) throws IOException {
    return new RegionBudget.Grant(
        in.readLong(),
        in.readLong(),
        in.readLong(),
        in.readLong(),
        in.readInt(),
        in.readLong(),
        in.readLong());
  }

  /** What a step did. */
  public static final class Result implements IdentifiedDataSerializable {
    private boolean answered;
    private long usableInNanos;
    private long deniedForNanos;
    private long deniedResetAfterNanos;
    private long held;
    private long refillAsk;
    private long ask;
    private List<RegionBudget.Grant> giveBack;

    /** For deserialization. */
    public Result() {
      this.giveBack = List.of();
    }

    Result(
        boolean answered,
        long usableInNanos,
        long deniedForNanos,
        long deniedResetAfterNanos,
        long held,
        long refillAsk,
        long ask,
        List<RegionBudget.Grant> giveBack) {
      this.answered = answered;
      this.usableInNanos = usableInNanos;
      this.deniedForNanos = deniedForNanos;
      this.deniedResetAfterNanos = deniedResetAfterNanos;
      this.held = held;
      this.refillAsk = refillAsk;
      this.ask = ask;
      this.giveBack = List.copyOf(giveBack);
    }

    /** A spend was answered from the budget. */
    public boolean answered() {
      return answered;
    }

    /**
     * A spend the budget could not answer yet: how long until paced permits it holds would (0: none
     * will).
     */
    public long usableInNanos() {
      return usableInNanos;
    }

    /**
     * A spend the budget could not answer that home's last denial still covers: how much longer (0:
     * none, ask home).
     */
    public long deniedForNanos() {
      return deniedForNanos;
    }

    /** With {@link #deniedForNanos}: until the key's window resets, as home said. */
    public long deniedResetAfterNanos() {
      return deniedResetAfterNanos;
    }

    /** The permits the budget holds after the step. */
    public long held() {
      return held;
    }

    /** The permits to ask home for ahead of need (0: no refill now). */
    public long refillAsk() {
      return refillAsk;
    }

    /** What to ask home for along with a request the budget could not answer. */
    public long ask() {
      return ask;
    }

    /** Grants to give back to home. */
    public List<RegionBudget.Grant> giveBack() {
      return giveBack;
    }

    @Override
    public int getFactoryId() {
      return SluiceSerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
      return SluiceSerializationIds.REGION_BUDGET_RESULT;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
      out.writeBoolean(answered);
      out.writeLong(usableInNanos);
      out.writeLong(deniedForNanos);
      out.writeLong(deniedResetAfterNanos);
      out.writeLong(held);
      out.writeLong(refillAsk);
      out.writeLong(ask);
      out.writeInt(giveBack.size());
      for (RegionBudget.Grant grant : giveBack) {
        writeGrant(out, grant);
      }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
      answered = in.readBoolean();
      usableInNanos = in.readLong();
      deniedForNanos = in.readLong();
      deniedResetAfterNanos = in.readLong();
      held = in.readLong();
      refillAsk = in.readLong();
      ask = in.readLong();
      int count = in.readInt();
      if (count < 0 || count > 1 << 16) {
        throw new IOException("implausible grant count " + count);
      }
      List<RegionBudget.Grant> grants = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        grants.add(readGrant(in));
      }
      giveBack = grants;
    }
  }

  /** The backup of a step: stores the budget the owner computed (null: the owner removed it). */
  public static final class Backup
      implements EntryProcessor<String, long[], Result>, IdentifiedDataSerializable {
    private long @Nullable [] value;

    /** For deserialization. */
    public Backup() {}

    Backup(long @Nullable [] value) {
      this.value = value;
    }

    @Override
    public @Nullable Result process(Map.Entry<String, long[]> entry) {
      if (value == null) {
        entry.setValue(null);
      } else {
        ((ExtendedMapEntry<String, long[]>) entry)
            .setValue(value, TTL_MILLIS, TimeUnit.MILLISECONDS);
      }
      return null;
    }

    @Override
    public @Nullable EntryProcessor<String, long[], Result> getBackupProcessor() {
      return null;
    }

    @Override
    public int getFactoryId() {
      return SluiceSerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
      return SluiceSerializationIds.REGION_BUDGET_BACKUP;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
      out.writeBoolean(value != null);
      if (value != null) {
        out.writeLongArray(value);
      }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
      value = in.readBoolean() ? in.readLongArray() : null;
    }
  }
}
