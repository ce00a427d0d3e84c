namespace py chat.service

service Chat {
  void send(1: string body,
  oneway void ping()
}
