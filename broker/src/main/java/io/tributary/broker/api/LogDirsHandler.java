package io.tributary.broker.api;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.tributary.broker.storage.LogManager;
import io.tributary.broker.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;

/**
 * DescribeLogDirs ({@code kafka-log-dirs.sh}, and {@code kafka-reassign-partitions.sh}, which looks at where replicas
 * live): every log directory of this broker with the size of each partition replica in it (all, or the named ones),
 * and from v4 the directory's total and usable bytes. An offline directory is reported with KAFKA_STORAGE_ERROR.
 * Tributary never moves a replica between directories, so no replica is a "future" one and every offset lag is 0.
 */
final class LogDirsHandler {

    private final LogManager logManager;
    private final List<Path> logDirs;

    LogDirsHandler(LogManager logManager, List<Path> logDirs) {
        this.logManager = logManager;
        this.logDirs = logDirs;
    }

    AbstractResponse describe(DescribeLogDirsRequest request) {
        DescribeLogDirsRequestData data = request.data();
        Set<Path> offline = logManager.offlineDirs();
        DescribeLogDirsResponseData response = new DescribeLogDirsResponseData().setErrorCode(Errors.NONE.code());
        for (Path dir : logDirs) {
            DescribeLogDirsResponseData.DescribeLogDirsResult result = new DescribeLogDirsResponseData
                    .DescribeLogDirsResult().setLogDir(dir.toString());
            if (offline.contains(dir)) {
                response.results().add(result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()));
                continue;
            }
            result.setErrorCode(Errors.NONE.code());
            Map<String, DescribeLogDirsResponseData.DescribeLogDirsTopic> topics = new LinkedHashMap<>();
            for (PartitionLog log : logManager.allLogs()) {
                TopicPartition tp = log.topicPartition();
                if (!log.dir().getParent().equals(dir) || !requested(data, tp)) {
                    continue;
                }
                topics.computeIfAbsent(tp.topic(), name -> {
                    DescribeLogDirsResponseData.DescribeLogDirsTopic topic =
                            new DescribeLogDirsResponseData.DescribeLogDirsTopic().setName(name);
                    result.topics().add(topic);
                    return topic;
                }).partitions().add(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                        .setPartitionIndex(tp.partition()).setPartitionSize(log.size()).setOffsetLag(0)
                        .setIsFutureKey(false));
            }
            try {
                FileStore store = Files.getFileStore(dir);
                result.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
            } catch (IOException e) {
                result.setTotalBytes(-1).setUsableBytes(-1);
            }
            response.results().add(result);
        }
        return new DescribeLogDirsResponse(response);
    }

    private static boolean requested(DescribeLogDirsRequestData data, TopicPartition tp) {
        if (data.topics() == null) {
            return true;
        }
        DescribeLogDirsRequestData.DescribableLogDirTopic topic = data.topics().find(tp.topic());
        return topic != null && topic.partitions().contains(tp.partition());
    }
}
