package dev.sluice.core.grid.transport;

import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.task.AbstractAsyncMessageTask;
import com.hazelcast.instance.impl.Node;
import com.hazelcast.internal.nio.Connection;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.security.permission.ActionConstants;
import com.hazelcast.security.permission.MapPermission;
import dev.sluice.core.grid.member.DecideProcessor;
import java.security.Permission;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The member's side of {@link DecideBatchCodec}: decides a client's batch of keys with one entry
 * operation per key, each on the partition that owns the key, and answers once when the last one is
 * done.
 *
 * <h2>Why a message of our own</h2>
 *
 * Over a client, a decision's cost is mostly Hazelcast's per-message work, not the algorithm: a
 * network read and write on each side, an IO thread handing the message to a partition thread, and
 * a response frame (docs/decisions/client-sync-path.md). {@code submitToKeys} shares the message
 * between keys, but the member turns it into a partition-iterating operation on a generic thread
 * that fans out into one more operation per partition and merges the results, which cost the member
 * more CPU per decision than one message per key. This task hands each key's operation straight to
 * the partition thread, so a batch costs one message each way plus one operation per key.
 *
 * <h2>Semantics</h2>
 *
 * Each key is one {@link DecideProcessor} invocation with only that key's requests, exactly what a
 * single {@code submitToKey} runs: the same atomic step, the owner's clock, and synchronous backups
 * (the invocation waits for the backup's acknowledgement before it completes, unlike {@code
 * submitToKeys}, whose backups are asynchronous). A key that is not owned here (the partition moved
 * after the client routed the batch) is still decided on its owner: the invocation goes there. If
 * any key fails, the whole batch answers with that failure, as {@code submitToKeys} does, once
 * every key's operation has finished; the other keys are counted.
 */
final class DecideBatchMessageTask
    extends AbstractAsyncMessageTask<DecideBatchCodec.Request, List<Data>> {

  DecideBatchMessageTask(ClientMessage message, Node node, Connection connection) {
    super(message, node, connection);
  }

  @Override
  protected DecideBatchCodec.Request decodeClientMessage(ClientMessage message) {
    return DecideBatchCodec.decodeRequest(message);
  }

  @Override
  @SuppressWarnings("unchecked")
  protected ClientMessage encodeResponse(Object response) {
    return DecideBatchCodec.encodeResponse((List<Data>) response);
  }

  @Override
  protected CompletableFuture<List<Data>> processInternal() {
    DecideProcessor batch = serializationService.toObject(parameters.processor());
    return new MemberBatchDecider(nodeEngine)
        .decideEach(parameters.mapName(), batch, endpoint.getUuid(), true)
        .thenApply(
            outcomes -> {
              List<Data> answers = new ArrayList<>(outcomes.length);
              for (Object outcome : outcomes) {
                answers.add((Data) outcome);
              }
              return answers;
            });
  }

  @Override
  public String getServiceName() {
    return MapService.SERVICE_NAME;
  }

  @Override
  public Permission getRequiredPermission() {
    return new MapPermission(
        parameters.mapName(), ActionConstants.ACTION_PUT, ActionConstants.ACTION_REMOVE);
  }

  @Override
  public String getDistributedObjectName() {
    return parameters.mapName();
  }

  @Override
  public String getMethodName() {
    return "submitToKeys";
  }

  @Override
  public Object[] getParameters() {
    return new Object[] {parameters.processor()};
  }
}
