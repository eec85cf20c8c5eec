package io.github.studengine.sample;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.util.Map;

/** A refused call as a program reads it: code, ErrorInfo reason and metadata, RetryInfo. */
final class Refusal {
  static final String DOMAIN = "stud.v1";
  final Status.Code code;
  final String message;
  final String reason;
  final Map<String, String> metadata;
  final String retryAfter;

  private Refusal(Status.Code code, String message, ErrorInfo info, String retryAfter) {
    this.code = code;
    this.message = message;
    this.reason = info.getReason();
    this.metadata = info.getMetadataMap();
    this.retryAfter = retryAfter;
  }

  /** The Stud Engine refusal in a failed call, or null when it carries no ErrorInfo. */
  static Refusal of(Throwable error) {
    com.google.rpc.Status status = StatusProto.fromThrowable(error);
    if (status == null) {
      return null;
    }
    ErrorInfo info = null;
    String retry = "";
    try {
      for (Any detail : status.getDetailsList()) {
        if (detail.is(ErrorInfo.class)) {
          ErrorInfo found = detail.unpack(ErrorInfo.class);
          if (DOMAIN.equals(found.getDomain())) {
            info = found;
          }
        } else if (detail.is(RetryInfo.class)) {
          var delay = detail.unpack(RetryInfo.class).getRetryDelay();
          retry = delay.getSeconds() + "." + String.format("%09d", delay.getNanos()) + "s";
        }
      }
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
    return info == null ? null : new Refusal(Status.fromThrowable(error).getCode(),
        status.getMessage(), info, retry);
  }

  @Override
  public String toString() {
    return code + " (" + reason + "): " + message;
  }
}
