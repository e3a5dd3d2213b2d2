/**
 * The narrow seam between the pipeline and a runtime's storage: a command in, an outcome out, with
 * its deadline.
 *
 * <p>Start here: {@link dev.sluice.core.backend.Backend} is the seam, {@link
 * dev.sluice.core.backend.BackendDecorator} a layer in front of it. The layers every runtime shares
 * live here: {@link dev.sluice.core.backend.BatchingBackend} (per-key merge and per-owner lanes),
 * {@link dev.sluice.core.backend.AdmissionReceipts} (receipts for admissions), {@link
 * dev.sluice.core.backend.AnsweringLayer} (a layer that answers some acquires itself). {@link
 * dev.sluice.core.backend.Deadline} is how long a caller waits, {@link
 * dev.sluice.core.backend.AnswerExecutor} where its answer completes.
 */
@NullMarked
package dev.sluice.core.backend;

import org.jspecify.annotations.NullMarked;
