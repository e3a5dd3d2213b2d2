package dev.sluice.core.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Decides requests for permits on the member that owns the key: ONE invocation per decision, the
 * first use of a key included (an absent entry is a fresh state, never a get-then-put).
 *
 * <h2>One key or many</h2>
 *
 * The processor carries {@link KeyRequests} for one key ({@code executeOnKey}/{@code submitToKey})
 * or for many keys at once ({@code submitToKeys}, one operation per owning member that Hazelcast
 * splits into one step per partition). Sluice's own batches ({@link MemberBatchDecider}, for an
 * embedded member's batches and a client's batch message) split one processor for many keys into
 * one per key on the member, each its own single-key invocation. Each key's requests are decided in
 * order in that key's one atomic step, so n concurrent calls on a hot key cost one invocation and
 * each learns its own answer.
 *
 * <h2>Backups</h2>
 *
 * The backup never re-runs the algorithm: it would read another member's clock. {@link
 * #getBackupProcessor()} hands the states just computed to a {@link StoreStatesBackup} that stores
 * them. Hazelcast asks for the backup processor on the partition thread right after it ran this
 * processor on that partition's keys, so the backup takes the keys of the partition this thread
 * last decided (recorded per thread); with several keys, one processor instance serves several
 * partition threads at once, and each thread only touches its own partition's requests.
 *
 * <p>Single-key invocations get synchronous backups (the map's backup count); Hazelcast sends
 * {@code submitToKeys} backups asynchronously, which only the fallback for a member without
 * Sluice's batch message still uses. docs/grid.md discusses what that means on member loss.
 */
public final class AcquireProcessor
    implements EntryProcessor<String, GridState, KeyOutcome>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware {
  /** A bound on requests per key per invocation, against corrupt or hostile input. */
  static final int MAX_REQUESTS_PER_KEY = 1 << 20;

  private static final ThreadLocal<int[]> LAST_PARTITION =
      ThreadLocal.withInitial(() -> new int[1]);

  private KeyRequests[] requests;
  private @Nullable Map<String, KeyRequests> byKey;
  private transient @Nullable MemberContext context;

  /** For deserialization. */
  public AcquireProcessor() {
    this.requests = new KeyRequests[0];
  }

  AcquireProcessor(KeyRequests[] requests) {
    this.requests = requests;
    this.byKey = index(requests);
  }

  private static @Nullable Map<String, KeyRequests> index(KeyRequests[] requests) {
    if (requests.length <= 4) {
      return null;
    }
    Map<String, KeyRequests> map = new HashMap<>(requests.length * 2);
    for (KeyRequests r : requests) {
      map.put(r.key, r);
    }
    return map;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.context = MemberContext.of(hazelcastInstance);
  }

  @Override
  public KeyOutcome process(Map.Entry<String, GridState> entry) {
    KeyRequests request = requestsFor(entry.getKey());
    if (request == null) {
      return KeyOutcome.invalid(0, "key", "key: no request for " + entry.getKey());
    }
    LAST_PARTITION.get()[0] = request.partitionId;
    Decider.Result result =
        Decider.decide(context, request.rule, request.policy, entry.getValue(), request.permits);
    request.written = result.written();
    request.ttlMillis = result.ttlMillis();
    if (result.written() != null) {
      ((ExtendedMapEntry<String, GridState>) entry)
          .setValue(result.written(), result.ttlMillis(), TimeUnit.MILLISECONDS);
    }
    return result.outcome();
  }

  private @Nullable KeyRequests requestsFor(String key) {
    if (byKey != null) {
      return byKey.get(key);
    }
    for (KeyRequests r : requests) {
      if (r.key.equals(key)) {
        return r;
      }
    }
    return null;
  }

  @Override
  public @Nullable EntryProcessor<String, GridState, KeyOutcome> getBackupProcessor() {
    List<KeyRequests> changed = new ArrayList<>(requests.length == 1 ? 1 : 8);
    if (requests.length == 1) {
      if (requests[0].written != null) {
        changed.add(requests[0]);
      }
    } else {
      int partition = LAST_PARTITION.get()[0];
      for (KeyRequests r : requests) {
        if (r.partitionId == partition && r.written != null) {
          changed.add(r);
        }
      }
    }
    return changed.isEmpty() ? null : StoreStatesBackup.of(changed);
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.ACQUIRE;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    WireFormat.writeVarInt(out, requests.length);
    for (KeyRequests r : requests) {
      r.writeTo(out);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int count = WireFormat.readVarInt(in);
    if (count < 0 || count > MAX_REQUESTS_PER_KEY) {
      throw new IOException("implausible key count " + count);
    }
    requests = new KeyRequests[count];
    for (int i = 0; i < count; i++) {
      requests[i] = KeyRequests.readFrom(in);
    }
    byKey = index(requests);
  }

  /** The requests, for tests. */
  KeyRequests[] requests() {
    return requests;
  }
}
