package io.tributary.broker.quota;

import java.util.function.Supplier;

import io.tributary.broker.metrics.BrokerMetrics;
import org.apache.kafka.common.utils.Time;

/**
 * The two byte-rate quotas a broker enforces, produce and fetch, over the same configured quotas. Thread-safe;
 * {@link #close()} is idempotent.
 */
public final class ByteRateQuotas implements AutoCloseable {

    private final ClientQuotaManager produce;
    private final ClientQuotaManager fetch;

    public ByteRateQuotas(QuotaConfig config, Supplier<ClientQuotas> quotas, Time time, BrokerMetrics metrics) {
        this.produce = new ClientQuotaManager(QuotaType.PRODUCE, config, quotas, time, metrics);
        this.fetch = new ClientQuotaManager(QuotaType.FETCH, config, quotas, time, metrics);
    }

    public ClientQuotaManager produce() {
        return produce;
    }

    public ClientQuotaManager fetch() {
        return fetch;
    }

    @Override
    public void close() {
        produce.close();
        fetch.close();
    }
}
