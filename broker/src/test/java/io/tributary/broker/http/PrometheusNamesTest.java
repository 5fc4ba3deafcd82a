package io.tributary.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.tributary.broker.metrics.BrokerMetrics;
import org.junit.jupiter.api.Test;

/** JMX object names and attributes to the names and labels the JMX exporter's Kafka rules give them. */
class PrometheusNamesTest {

    @Test
    void aMetersCountIsATotalCounterWithoutPerSecAndItsTagsAsLabels() {
        PrometheusNames.Series series = PrometheusNames.meterCount(
                "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=orders");
        assertEquals("kafka_server_brokertopicmetrics_messagesin_total", series.family());
        assertEquals(Map.of("topic", "orders"), series.labels());

        PrometheusNames.Series all = PrometheusNames.meterCount(
                "kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec");
        assertEquals("kafka_server_brokertopicmetrics_totalproducerequests_total", all.family());
        assertTrue(all.labels().isEmpty());

        PrometheusNames.Series versioned = PrometheusNames.meterCount(
                "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=9");
        assertEquals("kafka_network_requestmetrics_requests_total", versioned.family());
        assertEquals(List.of("request", "version"), List.copyOf(versioned.labels().keySet()));
        assertEquals("9", versioned.labels().get("version"));

        assertEquals("kafka_server_replicamanager_isrshrinks_total",
                PrometheusNames.meterCount("kafka.server:type=ReplicaManager,name=IsrShrinksPerSec").family());
    }

    @Test
    void aMeterWithoutPerSecInItsNameIsACount() {
        assertEquals("kafka_server_x_flushes_count",
                PrometheusNames.meterCount("kafka.server:type=X,name=Flushes").family());
    }

    @Test
    void aGaugesValueIsNamedByDomainTypeAndName() {
        assertEquals("kafka_server_replicamanager_underreplicatedpartitions",
                PrometheusNames.gauge("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions").family());
        assertEquals("kafka_controller_kafkacontroller_activecontrollercount",
                PrometheusNames.gauge("kafka.controller:type=KafkaController,name=ActiveControllerCount").family());
        PrometheusNames.Series size = PrometheusNames.gauge("kafka.log:type=Log,name=Size,topic=orders,partition=3");
        assertEquals("kafka_log_log_size", size.family());
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("topic", "orders");
        expected.put("partition", "3");
        assertEquals(expected, size.labels());
    }

    @Test
    void aHistogramsPercentilesAreQuantilesOfOneFamilyAndItsCountIsApart() {
        PrometheusNames.Series p99 = PrometheusNames.percentile(
                "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce", "99");
        assertEquals("kafka_network_requestmetrics_totaltimems", p99.family());
        assertEquals(Map.of("request", "Produce", "quantile", "0.99"), p99.labels());
        assertEquals("0.50", PrometheusNames.percentile(
                "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce", "50").labels().get("quantile"));
        assertEquals("0.999", PrometheusNames.percentile(
                "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce", "999").labels().get("quantile"));
        assertEquals("kafka_log_logflushstats_logflushrateandtimems_count", PrometheusNames.histogramCount(
                "kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs").family());
    }

    @Test
    void anAttributeOfAKafkaMetricsBeanIsNamedByTypeAndAttributeWithDashesAsUnderscores() {
        PrometheusNames.Series series = PrometheusNames.attribute(
                "kafka.server:type=group-coordinator-metrics,protocol=classic", "group-count");
        assertEquals("kafka_server_group_coordinator_metrics_group_count", series.family());
        assertEquals(Map.of("protocol", "classic"), series.labels());
    }

    @Test
    void labelNamesAreLowerCasedAndValuesKeptAsTheyAre() {
        PrometheusNames.Series series = PrometheusNames.gauge(
                "kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId=ReplicaFetcherThread-0,topic=Orders");
        assertEquals(Map.of("clientid", "ReplicaFetcherThread-0", "topic", "Orders"), series.labels());
    }

    @Test
    void namesBuiltByBrokerMetricsRoundTrip() {
        String name = BrokerMetrics.name("kafka.network", "RequestMetrics", "ErrorsPerSec", "request", "Fetch",
                "error", "NONE");
        PrometheusNames.Series series = PrometheusNames.meterCount(name);
        assertEquals("kafka_network_requestmetrics_errors_total", series.family());
        assertEquals(Map.of("request", "Fetch", "error", "NONE"), series.labels());
    }

    @Test
    void aNameWithoutDomainOrTypeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> PrometheusNames.gauge("type=Log,name=Size"));
        assertThrows(IllegalArgumentException.class, () -> PrometheusNames.gauge("kafka.log:name=Size"));
    }

    @Test
    void theTextFormatGroupsAFamilysSamplesUnderOneTypeLineAndEscapesLabelValues() {
        PrometheusText text = new PrometheusText();
        text.add("b_total", Map.of("topic", "t"), PrometheusText.Type.COUNTER, 3);
        text.add("a", Map.of("v", "say \"hi\"\\\n"), PrometheusText.Type.GAUGE, 0.25);
        text.add("b_total", Map.of("topic", "u"), PrometheusText.Type.COUNTER, 4);
        text.add("c", Map.of(), PrometheusText.Type.GAUGE, Double.POSITIVE_INFINITY);
        assertEquals("""
                # TYPE a gauge
                a{v="say \\"hi\\"\\\\\\n"} 0.25
                # TYPE b_total counter
                b_total{topic="t"} 3
                b_total{topic="u"} 4
                # TYPE c gauge
                c +Inf
                """, text.write());
    }
}
