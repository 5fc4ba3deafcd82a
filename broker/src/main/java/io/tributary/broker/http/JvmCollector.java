package io.tributary.broker.http;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.util.Map;

/**
 * Adds the JVM's basics to a scrape, under the names of the Prometheus Java client's JVM instrumentation
 * ({@code prometheus-metrics-instrumentation-jvm}), which JVM dashboards expect: {@code jvm_memory_used_bytes},
 * {@code jvm_memory_committed_bytes}, {@code jvm_memory_max_bytes} by {@code area} (heap, nonheap),
 * {@code jvm_memory_pool_used_bytes} by {@code pool}, {@code jvm_gc_collection_seconds_count} and {@code _sum} by
 * {@code gc}, {@code jvm_threads_current}, {@code jvm_threads_daemon}, {@code jvm_threads_peak},
 * {@code jvm_classes_currently_loaded}, {@code process_cpu_seconds_total}, {@code process_start_time_seconds},
 * {@code process_open_fds} and {@code process_max_fds} (the last three where the platform tells them). Reads the
 * platform MXBeans on the scrape's thread; none of these reads stops the JVM (thread dumps and deadlock detection,
 * which would, are left out).
 */
final class JvmCollector {

    void collect(PrometheusText text) {
        var memory = ManagementFactory.getMemoryMXBean();
        memory(text, "heap", memory.getHeapMemoryUsage());
        memory(text, "nonheap", memory.getNonHeapMemoryUsage());
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage usage = pool.getUsage();
            if (usage != null) {
                text.add("jvm_memory_pool_used_bytes", Map.of("pool", pool.getName()), PrometheusText.Type.GAUGE,
                        usage.getUsed());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            Map<String, String> labels = Map.of("gc", gc.getName());
            text.add("jvm_gc_collection_seconds_count", labels, PrometheusText.Type.COUNTER,
                    Math.max(0, gc.getCollectionCount()));
            text.add("jvm_gc_collection_seconds_sum", labels, PrometheusText.Type.COUNTER,
                    Math.max(0, gc.getCollectionTime()) / 1000.0);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        text.add("jvm_threads_current", Map.of(), PrometheusText.Type.GAUGE, threads.getThreadCount());
        text.add("jvm_threads_daemon", Map.of(), PrometheusText.Type.GAUGE, threads.getDaemonThreadCount());
        text.add("jvm_threads_peak", Map.of(), PrometheusText.Type.GAUGE, threads.getPeakThreadCount());
        text.add("jvm_classes_currently_loaded", Map.of(), PrometheusText.Type.GAUGE,
                ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        text.add("process_start_time_seconds", Map.of(), PrometheusText.Type.GAUGE, runtime.getStartTime() / 1000.0);
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            long cpuNanos = sun.getProcessCpuTime();
            if (cpuNanos >= 0) {
                text.add("process_cpu_seconds_total", Map.of(), PrometheusText.Type.COUNTER, cpuNanos / 1e9);
            }
        }
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            text.add("process_open_fds", Map.of(), PrometheusText.Type.GAUGE, unix.getOpenFileDescriptorCount());
            text.add("process_max_fds", Map.of(), PrometheusText.Type.GAUGE, unix.getMaxFileDescriptorCount());
        }
    }

    private static void memory(PrometheusText text, String area, MemoryUsage usage) {
        Map<String, String> labels = Map.of("area", area);
        text.add("jvm_memory_used_bytes", labels, PrometheusText.Type.GAUGE, usage.getUsed());
        text.add("jvm_memory_committed_bytes", labels, PrometheusText.Type.GAUGE, usage.getCommitted());
        text.add("jvm_memory_max_bytes", labels, PrometheusText.Type.GAUGE, usage.getMax());
    }
}
