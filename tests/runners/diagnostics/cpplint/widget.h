class Widget {
 public:
  int size();
  void add(std::string s);
 private:
  std::vector<std::string> items_;
};
